package pooler_test

import (
	"context"
	"os"
	"testing"

	"github.com/dbmem/dbmem/internal/pooler"
)

// TestMain makes this test binary dbmem's console helper when the
// connector re-executes it (/proc/self/exe) as a pooler's account.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == pooler.ConsoleHelperCommand {
		if err := pooler.ServeHelper(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
