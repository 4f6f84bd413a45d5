package myapply

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// TestRunAndRollback on a throwaway MariaDB 10.11: max_connections and
// tmp_table_size are set live and read back, thread_stack is said to need
// a restart, the journal holds the old values, and the rollback restores
// them.
func TestRunAndRollback(t *testing.T) {
	s := mysqltest.Start(t, map[string]string{"max_connections": "151"})
	db, ctx, dir := s.DB(t), context.Background(), t.TempDir()
	oldTmp, err := show(ctx, db, "tmp_table_size")
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(ctx, db, map[string]string{"max_connections": "77", "tmp_table_size": "33554432", "thread_stack": "524288"}, dir, "test")
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if j.Status != "done" || len(j.Changes) != 2 || len(j.Restart) != 1 || j.Restart[0] != "thread_stack" {
		t.Fatalf("journal %+v", j)
	}
	for name, want := range map[string]string{"max_connections": "77", "tmp_table_size": "33554432"} {
		if got, _ := show(ctx, db, name); got != want {
			t.Errorf("%s = %s, want %s", name, got, want)
		}
	}
	var saved Journal
	b, err := os.ReadFile(j.Path)
	if err != nil || json.Unmarshal(b, &saved) != nil || saved.Changes[0].Old != "151" || saved.Changes[1].Old != oldTmp {
		t.Fatalf("journal on disk %s: %v", b, err)
	}
	if err := Rollback(ctx, db, j); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"max_connections": "151", "tmp_table_size": oldTmp} {
		if got, _ := show(ctx, db, name); got != want {
			t.Errorf("after rollback %s = %s, want %s", name, got, want)
		}
	}
}

// A value the server does not take as given undoes the whole run:
// MariaDB caps max_connections at 100000.
func TestRunUndoesOnMismatch(t *testing.T) {
	s := mysqltest.Start(t, nil)
	db, ctx := s.DB(t), context.Background()
	before, _ := show(ctx, db, "join_buffer_size")
	j, err := Run(ctx, db, map[string]string{"join_buffer_size": "524288", "max_connections": "900000"}, t.TempDir(), "test")
	if err == nil || j.Status != "rolled-back" || !strings.Contains(err.Error(), "SHOW GLOBAL VARIABLES says") {
		t.Fatalf("status %v, err %v", j, err)
	}
	if got, _ := show(ctx, db, "join_buffer_size"); got != before || !j.Changes[0].Done {
		t.Errorf("join_buffer_size %s after the undo, want %s (set first: %+v)", got, before, j.Changes[0])
	}
}

// Values of dynamic variables that are not numbers or ON/OFF are refused
// before anything is read or set; a name dbmem does not set live waits for
// a restart, never goes into a statement.
func TestPlanRefuses(t *testing.T) {
	for _, in := range []map[string]string{{"max_connections": "1; DROP TABLE x"}, {"sort_buffer_size": "2M"}} {
		if _, _, err := Plan(in); err == nil {
			t.Errorf("%v accepted", in)
		}
	}
	live, restart, err := Plan(map[string]string{"init_connect": "DROP TABLE x", "large_pages": "ON"})
	if err != nil || len(live) != 0 || len(restart) != 2 {
		t.Errorf("live %v, restart %v, %v", live, restart, err)
	}
}
