package bundle

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Limits bound what reading a bundle may write to disk.
type Limits struct {
	MaxFileBytes  int64 // one member
	MaxTotalBytes int64 // all members
	MaxFiles      int
}

// DefaultLimits are far above any real capture (a host with 1,000 database
// processes and 16 MiB log tails is about 100 MiB).
var DefaultLimits = Limits{MaxFileBytes: 256 << 20, MaxTotalBytes: 4 << 30, MaxFiles: 1_000_000}

// Bundle is an opened bundle, extracted into a private directory.
type Bundle struct {
	Path     string
	Dir      string
	Manifest Manifest
}

// Open extracts the bundle at p into a new temporary directory (removed
// by Close) and reads its manifest.
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
	dir, err := os.MkdirTemp("", "dbmem-bundle-")
	if err != nil {
		return nil, fmt.Errorf("open bundle %s: %w", p, err)
	}
	b := &Bundle{Path: p, Dir: dir}
	if err := b.load(f, lim); err != nil {
		b.Close()
		return nil, fmt.Errorf("read bundle %s: %w", p, err)
	}
	return b, nil
}

func (b *Bundle) load(r io.Reader, lim Limits) error {
	if err := extract(r, b.Dir, lim); err != nil {
		return err
	}
	m, err := os.ReadFile(filepath.Join(b.Dir, manifestName))
	if err != nil {
		return errors.New("no manifest.json: not a bundle written by dbmem capture")
	}
	if err := json.Unmarshal(m, &b.Manifest); err != nil {
		return fmt.Errorf("manifest.json: %w", err)
	}
	if !strings.HasPrefix(b.Manifest.Schema, "dbmem.bundle/v1") {
		return fmt.Errorf("manifest.json: schema %q, this dbmem reads %s", b.Manifest.Schema, Schema)
	}
	return makeLinks(b.Dir)
}

// Close removes the extracted files.
func (b *Bundle) Close() error { return os.RemoveAll(b.Dir) }

// FS returns roots that read the bundle's /proc, /sys and host files; their
// errors name the bundle and the path on the captured host
// ("dump.tar.gz:/proc/1/status"), not the extraction directory.
func (b *Bundle) FS() linux.FS {
	fs := capture.TreeFS(b.Dir)
	fs.Label = b.Path
	return fs
}

// Live answers with what the servers said at capture time; nil when the
// capture did not ask them (--no-connect), as live.
func (b *Bundle) Live() postgres.LiveSource {
	if !b.Manifest.SQL {
		return nil
	}
	return capture.TreeLive{Dir: b.Dir}
}

// MySQLLive answers with what the MySQL/MariaDB servers said at capture
// time; nil when the capture did not ask them.
func (b *Bundle) MySQLLive() mysql.LiveSource {
	if !b.Manifest.SQL {
		return nil
	}
	return capture.TreeMySQLLive{Dir: b.Dir}
}

// extract writes the regular files and directories of the tar.gz in r
// under dir, refusing anything else.
func extract(r io.Reader, dir string, lim Limits) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip file: %w", err)
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	var total int64
	for n := 0; ; n++ {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tar: %w", err)
		}
		if n >= lim.MaxFiles {
			return fmt.Errorf("more than %d members: refusing", lim.MaxFiles)
		}
		total += max(h.Size, 0)
		if total > lim.MaxTotalBytes {
			return fmt.Errorf("members add up to more than %d bytes: refusing", lim.MaxTotalBytes)
		}
		if err := extractOne(tr, h, dir, lim); err != nil {
			return err
		}
	}
}

func extractOne(tr *tar.Reader, h *tar.Header, dir string, lim Limits) error {
	name := strings.TrimSuffix(h.Name, "/")
	if err := checkName(name); err != nil {
		return err
	}
	to := filepath.Join(dir, filepath.FromSlash(name))
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(to, 0o755)
	case tar.TypeReg:
	default:
		return fmt.Errorf("member %q is not a regular file or directory (type %q): refusing", h.Name, h.Typeflag)
	}
	if h.Size < 0 || h.Size > lim.MaxFileBytes {
		return fmt.Errorf("member %q is %d bytes, over the %d-byte limit: refusing", h.Name, h.Size, lim.MaxFileBytes)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return fmt.Errorf("member %q: %w", h.Name, err)
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, 0o644)
	if err != nil {
		return fmt.Errorf("member %q: %w (duplicate member?)", h.Name, err)
	}
	_, err = io.CopyN(f, tr, h.Size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("member %q: %w", h.Name, err)
	}
	return nil
}

// makeLinks recreates the recorded /proc links after every file is written.
func makeLinks(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, linksName))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var links map[string]string
	if err := json.Unmarshal(b, &links); err != nil {
		return fmt.Errorf("links.json: %w", err)
	}
	for name, target := range links {
		if err := checkLink(name, target); err != nil {
			return err
		}
		to := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			return fmt.Errorf("links.json: %s: %w", name, err)
		}
		if err := os.Symlink(target, to); err != nil {
			return fmt.Errorf("links.json: %s: %w", name, err)
		}
	}
	return nil
}
