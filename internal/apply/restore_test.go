package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
)

// TestRollbackRestoresFilesExactly replaces a hand-made sysctl.d file
// (odd bytes, no final newline, mode 0640, owner nobody) twice, then rolls
// back: the later run first, the earlier one refused until then, and the
// file comes back byte for byte with its mode and owner. A rollback can be
// rolled back. No kernel value changes (vm.swappiness is set to what it
// is).
func TestRollbackRestoresFilesExactly(t *testing.T) {
	needRoot(t)
	o := testOptions(t)
	file := o.hostPath("/etc/sysctl.d/60-dbmem.conf")
	os.MkdirAll(filepath.Dir(file), 0o755)
	orig := "# hand-made\r\nvm.swappiness=7\x00 and no newline"
	os.WriteFile(file, []byte(orig), 0o640)
	os.Chown(file, nobody, nobody)
	sw := guard(t, "vm.swappiness")["vm.swappiness"] // written back as is, but under the kernel test lock
	s := []finding.Setting{setting("vm.swappiness", sw)}

	j1 := mustRun(t, s, o)
	if b := j1.Files[0].Backup; !strings.HasSuffix(b, ".dbmem-"+j1.ID) || readFile(t, b) != orig {
		t.Fatalf("backup %s of the hand-made file", b)
	}
	if mode, uid, _ := statOf(t, file); mode != 0o640 || uid != nobody {
		t.Errorf("the replaced file lost its mode or owner: %o %d", mode, uid)
	}
	o.Render.Generated = "dbmem test, second run"
	j2 := mustRun(t, s, o)
	second := readFile(t, file)

	if _, err := PrepareRollback(o, j1.ID); err == nil || !strings.Contains(err.Error(), "roll it back first (dbmem rollback --id "+j2.ID) {
		t.Errorf("rolling back the first run under the second: %v", err)
	}
	r2 := mustRollback(t, o, "")
	if r2.Undoes != j2.ID || readFile(t, file) != readFile(t, j2.Files[0].Backup) {
		t.Errorf("rolled back %s, want %s", r2.Undoes, j2.ID)
	}
	r1 := mustRollback(t, o, "")
	if r1.Undoes != j1.ID || readFile(t, file) != orig {
		t.Fatalf("after undoing both runs the file holds %q, want %q", readFile(t, file), orig)
	}
	if mode, uid, gid := statOf(t, file); mode != 0o640 || uid != nobody || gid != nobody {
		t.Errorf("restored mode %o owner %d:%d", mode, uid, gid)
	}
	if _, err := PrepareRollback(o, ""); err == nil {
		t.Error("nothing should be left to roll back")
	}
	mustRollback(t, o, r1.ID)
	if readFile(t, file) != readFile(t, j1.Files[0].Backup) && readFile(t, file) == second {
		t.Errorf("rolling back the rollback %s should bring the first run's file back", r1.ID)
	}
	if !strings.Contains(readFile(t, file), "vm.swappiness = "+sw) {
		t.Errorf("after rolling back the rollback: %q", readFile(t, file))
	}
}

func mustRun(t *testing.T, s []finding.Setting, o Options) *Journal {
	t.Helper()
	p, err := Prepare(s, o)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func mustRollback(t *testing.T, o Options, id string) *Journal {
	t.Helper()
	p, err := PrepareRollback(o, id)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Run(p, o)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
