package pgcluster

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/dbmem/dbmem/internal/safeexec"
)

// Env is the whole environment of every PostgreSQL program dbmem runs
// (initdb, pg_ctl, postgres, pgbench): nothing of dbmem's own, whose
// environment may hold root's secrets (PGPASSWORD, tokens) and variables
// that change what a program loads (LD_PRELOAD, PGSYSCONFDIR).
func Env() []string { return safeexec.Env() }

// CheckBin refuses to let root run prog from bin unless only root could
// have put it there: the file (after its links) is root's, a regular
// file, and neither its group nor others may write it, and every
// directory on the way (of the path as given and as resolved) is root's
// and writable by root alone, or sticky (/tmp: others cannot replace an
// entry root owns). Any other account could swap the program for its own
// code, which root would then run. When dbmem does not run as root it
// runs programs with its own rights only, and nothing is checked.
func CheckBin(bin, prog string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	p, err := filepath.Abs(filepath.Join(bin, prog))
	if err != nil {
		return err
	}
	if err := safeexec.RootOnly(p); err != nil {
		return fmt.Errorf("PostgreSQL binary %s: %w: root runs only programs that only root can change (install PostgreSQL from packages, or give --pg-bin a directory root owns)", p, err)
	}
	return nil
}
