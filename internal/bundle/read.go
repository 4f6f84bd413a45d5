package bundle

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Limits bound what reading a bundle may take. A bundle is read into
// memory, never extracted: each limit is checked as the tar is read, at the
// member that crosses it.
type Limits struct {
	MaxFileBytes  int64 // one member
	MaxTotalBytes int64 // all members, uncompressed
	MaxFiles      int   // members (and recorded links)
	MaxDirs       int   // directories the member names make
	MaxDepth      int   // path components of one member name
}

// Figures of real captures (TestMeasureCapture; docs/security.md), quoted
// by the errors of a bundle beyond a limit.
const realCapture = "a real capture of this 2-core host holds 950 members in 195 directories, 1.9 MB; " +
	"one of 1,000 PostgreSQL backends 8,912 members in 1,191 directories, 8 path components deep, 31 MiB, plus up to 16 MiB per log"

// DefaultLimits hold a capture of some 30,000 database processes with their
// logs and refuse what no capture needs: 300,000 members, 100,000
// directories, 24 path components, 512 MiB in all, 256 MiB in one member.
// A bundle is held in memory, so the total bounds what reading it takes.
var DefaultLimits = Limits{MaxFileBytes: 256 << 20, MaxTotalBytes: 512 << 20, MaxFiles: 300_000, MaxDirs: 100_000, MaxDepth: 24}

// Bundle is an opened bundle, held in memory.
type Bundle struct {
	Path string
	// Dir is the name its members are read under (linux.FS roots
	// Dir/proc, Dir/sys, Dir/root); nothing exists there on disk.
	Dir      string
	Manifest Manifest
	tree     *tree
}

// Open reads the bundle at p into memory, within lim, and reads its
// manifest. Nothing is written to disk.
func Open(p string, lim Limits) (*Bundle, error) {
	f, err := os.Open(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said once, below
		}
		return nil, fmt.Errorf("open bundle %s: %w", p, err)
	}
	defer f.Close()
	b := &Bundle{Path: p, Dir: treeRoot}
	if err := b.load(f, lim); err != nil {
		return nil, fmt.Errorf("read bundle %s: %w", p, err)
	}
	return b, nil
}

// orDefaults fills the limits left zero from DefaultLimits.
func (lim Limits) orDefaults() Limits {
	d := DefaultLimits
	if lim.MaxFileBytes > 0 {
		d.MaxFileBytes = lim.MaxFileBytes
	}
	if lim.MaxTotalBytes > 0 {
		d.MaxTotalBytes = lim.MaxTotalBytes
	}
	for _, f := range []struct{ v, dst *int }{{&lim.MaxFiles, &d.MaxFiles}, {&lim.MaxDirs, &d.MaxDirs}, {&lim.MaxDepth, &d.MaxDepth}} {
		if *f.v > 0 {
			*f.dst = *f.v
		}
	}
	return d
}

func (b *Bundle) load(r io.Reader, lim Limits) error {
	l := &loader{lim: lim.orDefaults(), t: newTree()}
	if err := l.read(r); err != nil {
		return err
	}
	m, ok := l.t.files[manifestName]
	if !ok {
		return errors.New("no manifest.json: not a bundle written by dbmem capture")
	}
	if err := json.Unmarshal(m, &b.Manifest); err != nil {
		return fmt.Errorf("manifest.json: %w", err)
	}
	if !strings.HasPrefix(b.Manifest.Schema, "dbmem.bundle/v1") {
		return fmt.Errorf("manifest.json: schema %q, this dbmem reads %s", b.Manifest.Schema, Schema)
	}
	if err := addLinks(l); err != nil {
		return err
	}
	b.tree = l.t
	return nil
}

// Close drops the members; the bundle reads nothing afterwards.
func (b *Bundle) Close() error {
	if b.tree != nil {
		*b.tree = *newTree() // FS() copies share the tree: they read nothing now
	}
	return nil
}

// FS returns roots that read the bundle's /proc, /sys and host files; their
// errors name the bundle and the path on the captured host
// ("dump.tar.gz:/proc/1/status").
func (b *Bundle) FS() linux.FS {
	return linux.FS{Proc: treeRoot + "/proc", Sys: treeRoot + "/sys", Root: treeRoot + "/root", Files: b.tree, Label: b.Path}
}

// Live answers with what the servers said at capture time; nil when the
// capture did not ask them (--no-connect), as live.
func (b *Bundle) Live() postgres.LiveSource {
	if !b.Manifest.SQL {
		return nil
	}
	return capture.TreeLive{Dir: treeRoot, Read: b.tree.ReadFile}
}

// MySQLLive answers with what the MySQL/MariaDB servers said at capture
// time; nil when the capture did not ask them.
func (b *Bundle) MySQLLive() mysql.LiveSource {
	if !b.Manifest.SQL {
		return nil
	}
	return capture.TreeMySQLLive{Dir: treeRoot, Read: b.tree.ReadFile}
}

// PoolerConsole answers with what each PgBouncer's console said at
// capture time; nil when the capture did not ask (--no-connect).
func (b *Bundle) PoolerConsole() pooler.ConsoleSource {
	if !b.Manifest.SQL {
		return nil
	}
	return capture.TreePoolerConsole{Dir: treeRoot, Read: b.tree.ReadFile}
}

// addLinks adds the recorded /proc links of links.json.
func addLinks(l *loader) error {
	b, ok := l.t.files[linksName]
	if !ok {
		return nil
	}
	var links map[string]string
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("links.json: %w", err)
	}
	for _, name := range slices.Sorted(maps.Keys(links)) { // the same error for the same bundle
		if err := l.addLink(name, links[name]); err != nil {
			return err
		}
	}
	return nil
}
