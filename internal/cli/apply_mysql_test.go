package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// TestApplyMySQLLive applies max_connections (dynamic) and thread_stack
// (read at start) to a throwaway MariaDB: both go to the [mysqld] drop-in,
// max_connections is also set live and read back, thread_stack is said to
// need a restart; rollback --mysql sets max_connections back.
func TestApplyMySQLLive(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("apply takes /run/dbmem/apply.lock: needs root")
	}
	s := mysqltest.Start(t, map[string]string{"max_connections": "151"})
	root, journal, port := t.TempDir(), t.TempDir(), fmt.Sprint(s.Port)
	code, out, stderr := run(t, "--mysql-port", port, "apply", "--mysql", "--set", "mysql:max_connections=77", "--set", "mysql:thread_stack=524288",
		"--write-root", root, "--journal-dir", journal, "--yes")
	if code != ExitOK {
		t.Fatalf("apply: exit %d: %s\n%s", code, stderr, out)
	}
	for _, want := range []string{"SET GLOBAL max_connections = 77 (was 151) (SHOW GLOBAL VARIABLES: 77)", "thread_stack takes effect only at a restart", "undo with: dbmem rollback --mysql --yes"} {
		if !strings.Contains(out, want) {
			t.Errorf("apply lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
	if got := variable(t, s, "max_connections"); got != "77" {
		t.Errorf("max_connections = %s after apply", got)
	}
	files, _ := filepath.Glob(filepath.Join(root, "etc/mysql/conf.d/*"))
	if len(files) != 1 {
		t.Fatalf("drop-in: %v", files)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "max_connections = 77") || !strings.Contains(string(b), "thread_stack = 524288") {
		t.Errorf("drop-in %s:\n%s", files[0], b)
	}
	code, out, stderr = run(t, "--mysql-port", port, "rollback", "--mysql", "--journal-dir", journal, "--yes")
	if code != ExitOK || !strings.Contains(out, "undone") {
		t.Fatalf("rollback: exit %d: %s\n%s", code, stderr, out)
	}
	if got := variable(t, s, "max_connections"); got != "151" {
		t.Errorf("max_connections = %s after rollback", got)
	}
	t.Log("\n" + out)
	// rollback --list shows the live MySQL run beside the host's runs.
	code, out, stderr = run(t, "rollback", "--list", "--journal-dir", journal)
	want := regexp.MustCompile(`(?m)^MySQL/MariaDB runs made live \(rollback --mysql\):\n\d{8}T\d{6}\.\d{3}Z  undone on .*\n    max_connections=77$`)
	if code != ExitOK || !want.MatchString(out) {
		t.Errorf("rollback --list: exit %d: %s\n%s", code, stderr, out)
	}
	t.Log("\n" + out)
}

func variable(t *testing.T, s *mysqltest.Server, name string) string {
	var n, v string
	if err := s.DB(t).QueryRowContext(context.Background(), "SHOW GLOBAL VARIABLES WHERE Variable_name = ?", name).Scan(&n, &v); err != nil {
		t.Fatal(err)
	}
	return v
}
