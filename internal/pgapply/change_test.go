package pgapply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
)

// TestChangesRefuse: a plan file may come from anywhere: only the memory
// settings dbmem plans are carried out, for a role name that can be
// written, with a value that cannot escape its quotes.
func TestChangesRefuse(t *testing.T) {
	for _, s := range []finding.Setting{
		{Target: finding.TargetPostgresRole, Role: "app", Name: "session_preload_libraries", Value: "evil"},
		{Target: finding.TargetPostgres, Name: "archive_command", Value: "rm -rf /"},
		{Target: finding.TargetPostgres, Name: "shared_preload_libraries", Value: "evil"},
		{Target: finding.TargetPostgresRole, Role: "a\nb", Name: "work_mem", Value: "64MB"},
		{Target: finding.TargetPostgresRole, Role: strings.Repeat("r", 64), Name: "work_mem", Value: "64MB"},
		{Target: finding.TargetPostgresRole, Role: "app", Name: "work_mem", Value: `64MB\'; DROP ROLE app; --`},
		{Target: finding.TargetPostgres, Name: "work_mem; DROP", Value: "1MB"},
	} {
		if _, err := Changes([]finding.Setting{s}, true); err == nil {
			t.Errorf("%+v was accepted", s)
		}
	}
	cs, err := Changes([]finding.Setting{{Target: finding.TargetPostgresRole, Role: `a "b" ü@c`, Name: "work_mem", Value: "64MB"}}, true)
	if err != nil || cs[0].setSQL() != `ALTER ROLE "a ""b"" ü@c" SET work_mem = '64MB'` {
		t.Errorf("%v %q", err, cs[0].setSQL())
	}
	if u := cs[0].undo(); !u.Reset || u.setSQL() != `ALTER ROLE "a ""b"" ü@c" RESET work_mem` {
		t.Errorf("undo %+v %q", u, u.setSQL())
	}
}

// TestJournalDirRefusesOthers: the journal directory is made 0700 and
// refused when others may write it.
func TestJournalDirRefusesOthers(t *testing.T) {
	root := t.TempDir()
	if _, err := newJournal(root, "apply", "", "x", time.Now(), nil); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(root, "postgres"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, %v", st.Mode().Perm(), err)
	}
	if err := os.Chmod(filepath.Join(root, "postgres"), 0o777); err != nil {
		t.Fatal(err)
	}
	if _, err := newJournal(root, "apply", "", "x", time.Now(), nil); err == nil || !strings.Contains(err.Error(), "writable by its group or by everyone") {
		t.Fatalf("a 0777 journal directory: %v", err)
	}
}
