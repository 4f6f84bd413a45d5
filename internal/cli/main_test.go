package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestMain makes this test binary dbmem's helper when a command run in
// the tests re-executes it (/proc/self/exe) as a data directory's owner,
// and removes the binaries the end-to-end tests built.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == postgres.HelperCommand || os.Args[1] == pooler.ConsoleHelperCommand) {
		os.Exit(Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	if dbmemBin != "" {
		os.RemoveAll(filepath.Dir(dbmemBin))
	}
	os.Exit(code)
}
