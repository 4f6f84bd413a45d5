package corpus

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Backend is the client backend of the recorded PostgreSQL host whose
// status and smaps_rollup a status or smaps_rollup input replaces.
const Backend = "18778"

// Build writes the tree of case c under dir: the base (pg15Off is the
// recorded PostgreSQL 15 host, testdata/fixtures/pg15-hugepages-off, whose
// sysfs huge page pools are left out), then each input in its place. It
// returns the roots' directory: proc, sys and root under it.
func Build(c Case, partial, pg15Off, dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "proc"), 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "sys"), 0o755); err != nil {
		return err
	}
	switch c.Base {
	case BaseMinimal:
	case BasePG15Off:
		if err := copyTree(pg15Off, dir, skipPools); err != nil {
			return err
		}
	default:
		return fmt.Errorf("case %s: unknown base %q", c.Name, c.Base)
	}
	for _, in := range c.Inputs {
		if err := place(filepath.Join(partial, in), in, dir); err != nil {
			return fmt.Errorf("case %s: %w", c.Name, err)
		}
	}
	return nil
}

// place copies one input where its directory says it belongs.
func place(src, name, dir string) error {
	switch kind, _, _ := strings.Cut(name, "/"); kind {
	case "meminfo":
		return copyFile(src, filepath.Join(dir, "proc", "meminfo"))
	case "status", "smaps_rollup":
		return copyFile(src, filepath.Join(dir, "proc", Backend, kind))
	case "sysfs":
		return copyTree(src, filepath.Join(dir, "sys"), nil)
	default:
		return fmt.Errorf("input %s: want meminfo/, status/, smaps_rollup/ or sysfs/", name)
	}
}

// skipPools leaves a base's huge page pools out, so that the pools come
// from the case's inputs only.
func skipPools(rel string) bool {
	return strings.HasSuffix(rel, "/hugepages") || strings.Contains(rel, "/hugepages/")
}

func copyTree(src, dst string, skip func(rel string) bool) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if skip != nil && skip(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		return copyFile(p, filepath.Join(dst, rel))
	})
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
