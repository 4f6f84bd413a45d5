// Command gendocs writes dbmem's man pages (section 1, one per command,
// from the cobra commands' help, with their options, exit statuses and
// examples) and its bash, zsh and fish completion
// scripts, for scripts/package:
//
//	go run ./internal/cli/gendocs -out DIR -version VERSION
//
// writes DIR/man/dbmem*.1 and DIR/completions/{dbmem.bash,_dbmem,dbmem.fish}.
// The pages' date is SOURCE_DATE_EPOCH when set (reproducible builds).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/cli"
)

func main() {
	out := flag.String("out", "", "directory to write man/ and completions/ into")
	version := flag.String("version", "dev", "version named in the man pages' footer")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gendocs: -out DIR is required")
		os.Exit(2)
	}
	if err := run(*out, *version); err != nil {
		fmt.Fprintf(os.Stderr, "gendocs: %v\n", err)
		os.Exit(1)
	}
}

func run(out, version string) error {
	root := cli.Command(io.Discard, os.Stderr)
	root.DisableAutoGenTag = true
	date, err := buildDate()
	if err != nil {
		return err
	}
	man := filepath.Join(out, "man")
	if err := os.MkdirAll(man, 0o755); err != nil {
		return err
	}
	if err := manTree(root, man, version, date); err != nil {
		return fmt.Errorf("man pages: %w", err)
	}
	return completions(root, filepath.Join(out, "completions"))
}

// completions writes the scripts cobra generates, with descriptions.
func completions(root *cobra.Command, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, gen := range map[string]func(io.Writer) error{
		"dbmem.bash": func(w io.Writer) error { return root.GenBashCompletionV2(w, true) },
		"_dbmem":     root.GenZshCompletion,
		"dbmem.fish": func(w io.Writer) error { return root.GenFishCompletion(w, true) },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		err = gen(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("completion %s: %w", name, err)
		}
	}
	return nil
}

// buildDate is SOURCE_DATE_EPOCH, else now.
func buildDate() (time.Time, error) {
	s := os.Getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Now().UTC(), nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
	}
	return time.Unix(n, 0).UTC(), nil
}
