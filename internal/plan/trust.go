package plan

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/snapshot"
)

// unknownOwners notes the instances of a snapshot whose owners were not
// recorded (a --proc tree, a bundle captured before dbmem recorded them):
// nothing says whether a trusted account runs them, so they are planned
// as read.
func unknownOwners(s *snapshot.Snapshot) []string {
	n := 0
	for _, pg := range s.Postgres {
		if pg.Owners == nil {
			n++
		}
	}
	for _, my := range s.MySQL {
		if my.Owners == nil {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("owners of %d instance(s) not recorded (a --proc tree, or a bundle captured before dbmem recorded them): "+
		"planned as read, without the check that leaves instances of untrusted accounts out of the host-wide settings", n)}
}
