package mysql

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/linux"
)

// confEntry is one meaningful line of an option file (my.cnf).
type confEntry struct {
	Line       int
	Group      string // lower case, without brackets
	Key        string // normalised; "" for include lines
	Value      string
	HasValue   bool // "key=value" rather than a bare "key"
	Include    string
	IncludeDir string
}

// parseConf parses the text of an option file: [group] headers,
// "key = value" and bare "key" lines, '#' and ';' comments, quoted values,
// !include FILE and !includedir DIR. It never fails on content.
func parseConf(r io.Reader) ([]confEntry, error) {
	var out []confEntry
	group := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			if end := strings.IndexByte(line, ']'); end > 0 {
				group = strings.ToLower(strings.TrimSpace(line[1:end]))
			}
		case strings.HasPrefix(line, "!includedir"):
			out = append(out, confEntry{Line: n, Group: group, IncludeDir: strings.TrimSpace(line[len("!includedir"):])})
		case strings.HasPrefix(line, "!include"):
			out = append(out, confEntry{Line: n, Group: group, Include: strings.TrimSpace(line[len("!include"):])})
		default:
			out = append(out, confOption(n, group, line))
		}
	}
	return out, sc.Err()
}

func confOption(n int, group, line string) confEntry {
	e := confEntry{Line: n, Group: group}
	key, val, hasVal := strings.Cut(line, "=")
	e.Key, e.HasValue = NormalizeName(key), hasVal
	if hasVal {
		e.Value = unquote(strings.TrimSpace(val))
	}
	return e
}

// unquote removes matching quotes, or an unquoted value's trailing "# comment".
func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') {
		if end := strings.IndexByte(v[1:], v[0]); end >= 0 {
			return v[1 : end+1]
		}
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	if i := strings.Index(v, "\t#"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v)
}

// option is one value read from an option file, in reading order.
type option struct {
	Key, Value string
	HasValue   bool
	File       string
}

// confReader follows includes and collects the options of chosen groups,
// within one budget (confbudget.Default) for all the files of a server.
type confReader struct {
	fs      linux.FS
	budget  *confbudget.Reader
	groups  map[string]bool
	options []option
	files   []string
	gaps    []linux.Gap
	stopped bool // the budget refused: nothing more is read
}

// readOptionFiles reads files in order (a missing file is skipped unless
// required) and returns the options of the groups, the files read and gaps.
// An include cycle or a file over the budget ends the read at once: the
// gap names the file, and options read so far are kept.
func readOptionFiles(fs linux.FS, files []string, required map[string]bool, groups []string) ([]option, []string, []linux.Gap) {
	return readOptionFilesBudget(fs, files, required, groups, confbudget.Default)
}

func readOptionFilesBudget(fs linux.FS, files []string, required map[string]bool, groups []string, b confbudget.Budget) ([]option, []string, []linux.Gap) {
	r := &confReader{fs: fs, budget: confbudget.New(fs, b), groups: map[string]bool{}}
	for _, g := range groups {
		r.groups[g] = true
	}
	for _, f := range files {
		if r.stopped {
			break
		}
		if !required[f] && !fs.Exists(fs.HostPath(f)) {
			continue
		}
		r.read(f)
	}
	return r.options, r.files, r.gaps
}

func (r *confReader) read(file string) {
	if r.stopped {
		return
	}
	b, err := r.budget.Enter(file)
	if err != nil {
		r.fail("option file "+file, err)
		return
	}
	defer r.budget.Leave()
	r.files = append(r.files, file)
	entries, _ := parseConf(bytes.NewReader(b))
	if err := r.budget.FanOut(file, countIncludes(entries), "includes"); err != nil {
		r.fail("option file "+file, err)
		return
	}
	for _, e := range entries {
		r.apply(file, e)
	}
}

// fail records a gap; a refusal of the budget stops the whole read.
func (r *confReader) fail(what string, err error) {
	r.gaps = append(r.gaps, linux.Gap{What: what, Why: err.Error(), Kind: linux.KindOf(err)})
	if errors.Is(err, confbudget.ErrOverBudget) {
		r.stopped = true
	}
}

func countIncludes(entries []confEntry) int {
	n := 0
	for _, e := range entries {
		if e.Include != "" || e.IncludeDir != "" {
			n++
		}
	}
	return n
}

func (r *confReader) apply(file string, e confEntry) {
	switch {
	case e.Include != "":
		r.read(resolve(file, e.Include))
	case e.IncludeDir != "":
		r.readDir(resolve(file, e.IncludeDir))
	case r.groups[e.Group] && e.Key != "":
		r.options = append(r.options, option{Key: e.Key, Value: e.Value, HasValue: e.HasValue, File: file})
	}
}

// readDir reads the *.cnf files of an !includedir, sorted by name.
func (r *confReader) readDir(dir string) {
	if r.stopped {
		return
	}
	names, err := r.fs.ReadDir(r.fs.HostPath(dir))
	if err != nil {
		r.gaps = append(r.gaps, linux.Gap{What: "option directory " + dir, Why: err.Error(), Kind: linux.KindOf(err)})
		return
	}
	var cnf []string
	for _, n := range names {
		if strings.HasSuffix(n, ".cnf") {
			cnf = append(cnf, n)
		}
	}
	if err := r.budget.FanOut(dir, len(cnf), "option files (!includedir)"); err != nil {
		r.fail("option directory "+dir, err)
		return
	}
	sort.Strings(cnf)
	for _, n := range cnf {
		r.read(path.Join(dir, n))
	}
}

func resolve(from, p string) string {
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	return path.Join(path.Dir(from), p)
}

// applyOptions sets options into s, later ones winning. Prefixes follow
// the server's rules: loose- is ignored, skip-X and disable-X set X=OFF,
// enable-X sets X=ON, and a bare option means ON.
func applyOptions(s Settings, opts []option, src Source) {
	for _, o := range opts {
		key, val := optionValue(o.Key, o.Value, o.HasValue)
		s.set(key, val, src, o.File)
		for _, p := range []string{"skip_", "disable_"} {
			if rest, ok := strings.CutPrefix(key, p); ok && !o.HasValue {
				s.set(rest, "OFF", src, o.File)
			}
		}
		if rest, ok := strings.CutPrefix(key, "enable_"); ok && !o.HasValue {
			s.set(rest, "ON", src, o.File)
		}
	}
}

func optionValue(key, val string, hasValue bool) (string, string) {
	key = strings.TrimPrefix(NormalizeName(key), "loose_")
	if !hasValue {
		val = "ON"
	}
	return key, val
}

// serverGroups are the option groups mysqld or mariadbd reads.
func serverGroups(f Flavor, version string) []string {
	g := []string{"mysqld", "server"}
	mm := majorMinor(version)
	if mm != "" {
		g = append(g, "mysqld-"+mm)
	}
	if f == MariaDB {
		g = append(g, "mariadb", "mariadbd", "client-server")
		if mm != "" {
			g = append(g, "mariadb-"+mm, "mariadbd-"+mm)
		}
	}
	return g
}

// majorMinor turns "10.11.19-MariaDB-0+deb12u1" into "10.11".
func majorMinor(v string) string {
	f := strings.SplitN(v, ".", 3)
	if len(f) < 2 {
		return ""
	}
	minor := strings.TrimRightFunc(f[1], func(r rune) bool { return r < '0' || r > '9' })
	return f[0] + "." + minor
}

func describeFiles(files []string) string {
	if len(files) == 0 {
		return "no option file found"
	}
	return fmt.Sprintf("option files %s", strings.Join(files, ", "))
}
