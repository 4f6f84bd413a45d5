package postgres

import (
	"errors"
	"testing"
)

// TestShortPgError: pgconn's connection details are dropped, dbmem's own
// messages kept whole whatever their length (a short path once made the
// identity check's message lose "the server that answered is not
// postmaster N").
func TestShortPgError(t *testing.T) {
	own := "the server that answered is not postmaster 2559: the backend serving dbmem (pid 2590) has parent pid 2582, and data_directory \"/tmp/a/data\" port 5 do not name /tmp/b/data port 5; its settings are not used"
	if got := shortPgError(errors.New(own)); got != own {
		t.Errorf("dbmem's message cut to %q", got)
	}
	conn := "failed to connect to `user=postgres database=postgres`: /tmp/x/.s.PGSQL.5432 (/tmp/x): dial error: dial unix /tmp/x/.s.PGSQL.5432: connect: no such file or directory"
	if got := shortPgError(errors.New(conn)); got != "no such file or directory" {
		t.Errorf("pgconn's error gives %q, want its cause alone", got)
	}
}
