package bundle

import (
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Names of the bundle's metadata members.
const (
	manifestName = "manifest.json"
	linksName    = "links.json"
)

// topDirs are the directories a bundle may hold.
var topDirs = map[string]bool{"proc": true, "sys": true, "root": true, "live": true, "logs": true}

// checkName accepts a member name only if it is relative, clean and under
// a known top directory (or is a metadata file).
func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty member name")
	case strings.ContainsAny(name, "\x00\\"):
		return fmt.Errorf("member %q: NUL or backslash in the name", name)
	case strings.HasPrefix(name, "/"):
		return fmt.Errorf("member %q: absolute path (a dbmem bundle holds relative paths only)", name)
	case name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../") || strings.HasSuffix(name, "/.."):
		return fmt.Errorf("member %q: the path leaves the bundle (..)", name)
	case path.Clean(name) != name:
		return fmt.Errorf("member %q: the path is not clean (., // or a trailing slash)", name)
	case len(name) > 4096:
		return fmt.Errorf("member %q...: the path is too long", name[:64])
	}
	if name == manifestName || name == linksName {
		return nil
	}
	top, _, _ := strings.Cut(name, "/")
	if !topDirs[top] {
		return fmt.Errorf("member %q: not under proc/, sys/, root/, live/ or logs/", name)
	}
	return nil
}

// linkRe are the only places links are recreated: the /proc links dbmem's
// readers read with readlink (never follow).
var linkRe = regexp.MustCompile(`^proc/(?:\d+|self|thread-self)(?:/task/\d+)?/(?:cwd|exe|ns/[a-z_]+|fd/\d+)$`)

// checkLink accepts a recorded link.
func checkLink(name, target string) error {
	if err := checkName(name); err != nil {
		return fmt.Errorf("links.json: %w", err)
	}
	if !linkRe.MatchString(name) {
		return fmt.Errorf("links.json: link %q: dbmem records links only at proc/PID/{cwd,exe,ns/*,fd/N}", name)
	}
	if target == "" || len(target) > 4096 || strings.ContainsRune(target, 0) {
		return fmt.Errorf("links.json: link %q: empty, too long or NUL in the target", name)
	}
	return nil
}
