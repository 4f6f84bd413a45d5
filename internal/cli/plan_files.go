package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/render"
)

// writeFiles writes the files of one --format kind: each under --out-dir
// at its installation path, or the one --target names, or the only one.
// Several files are never printed as one stream (saved as one drop-in, a
// unit's drop-in and the /sys oneshot unit would turn the database's
// service into a oneshot).
func writeFiles(e *env, files []render.File, pf planFlags) error {
	switch {
	case pf.outDir != "":
		return writeOutDir(e, files, pf.outDir)
	case pf.target != "":
		for _, f := range files {
			if fileTarget(f) == pf.target || filepath.Base(f.Path) == pf.target || f.Path == pf.target {
				_, err := fmt.Fprint(e.stdout, f.Content)
				return err
			}
		}
		return usageError{fmt.Errorf("--target %q: --format %s makes %s", pf.target, pf.format, targetList(files))}
	case len(files) == 1:
		_, err := fmt.Fprint(e.stdout, files[0].Content)
		return err
	}
	return usageError{fmt.Errorf("--format %s makes %d files (%s): give --out-dir DIR to write them all, or --target NAME for one",
		pf.format, len(files), targetList(files))}
}

// checkFileFlags: --out-dir and --target choose among the files of a kind
// that makes files.
func (pf *planFlags) checkFileFlags() error {
	if pf.outDir == "" && pf.target == "" {
		return nil
	}
	switch pf.format {
	case "sysctl", "systemd", "postgresql", "mysql", "kernel-cmdline":
		return nil
	}
	return usageError{fmt.Errorf("--out-dir and --target go with --format sysctl, systemd, postgresql, mysql or kernel-cmdline (got %q)", pf.format)}
}

// fileTarget names a file by what it configures: the unit a drop-in is for
// ("postgresql@15-main.service"), else its base name.
func fileTarget(f render.File) string {
	if d := filepath.Base(filepath.Dir(f.Path)); strings.HasSuffix(d, ".d") {
		return strings.TrimSuffix(d, ".d")
	}
	return filepath.Base(f.Path)
}

func targetList(files []render.File) string {
	var names []string
	for _, f := range files {
		names = append(names, fileTarget(f)+" ("+f.Path+")")
	}
	return strings.Join(names, ", ")
}

func writeOutDir(e *env, files []render.File, dir string) error {
	for _, f := range files {
		rel := filepath.FromSlash(strings.TrimPrefix(f.Path, "/"))
		sub, err := hostchange.OutputDir(dir, filepath.Dir(rel))
		if err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
		p := filepath.Join(sub, filepath.Base(rel))
		if err := hostchange.WriteOutput(p, f.Mode.Perm(), func(w io.Writer) error { _, err := io.WriteString(w, f.Content); return err }); err != nil {
			return fmt.Errorf("--out-dir: %w", err)
		}
		fmt.Fprintf(e.stdout, "wrote %s (%s: %s)\n", p, f.Path, f.Then)
	}
	return nil
}
