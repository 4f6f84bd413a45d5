package xray

import (
	"context"
	"os"
	"testing"

	"github.com/dbmem/dbmem/internal/postgres"
)

// TestMain makes this test binary dbmem's helper when the connector
// re-executes it (/proc/self/exe) as the data directory's owner.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == postgres.HelperCommand {
		if err := postgres.ServeHelper(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
