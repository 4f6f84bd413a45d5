package termtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal every line of report, check, plan and watch fits the
// pane, at 80 and at 120 columns, on this host's real data (its
// PostgreSQL, MariaDB and whatever else runs).
func TestOutputFitsTheTerminal(t *testing.T) {
	for _, width := range []int{80, 120} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			p := newPane(t, width, 50)
			for _, cmd := range []string{"report", "report --all", "check", "plan"} {
				code, lines := p.run(dbmem + " " + cmd)
				if code != "0" && code != "3" {
					t.Errorf("dbmem %s: exit %s:\n%s", cmd, code, strings.Join(lines, "\n"))
				}
				if len(lines) < 10 {
					t.Errorf("dbmem %s printed only %d lines:\n%s", cmd, len(lines), strings.Join(lines, "\n"))
				}
				if bad := p.tooWide(lines); len(bad) > 0 {
					t.Errorf("dbmem %s at %d columns: %d lines too wide:\n%s", cmd, width, len(bad), strings.Join(bad, "\n"))
				}
			}
			// watch draws on the alternate screen, gone when it ends: read it
			// while it runs, after a smaps_rollup pass (tick 2).
			startWatch(t, p, "--interval 1s --smaps-interval 1s")
			screen := p.waitForTick(3)
			if bad := p.tooWide(screen); len(bad) > 0 {
				t.Errorf("dbmem watch at %d columns: %d lines too wide:\n%s", width, len(bad), strings.Join(bad, "\n"))
			}
			if mysqlRuns() && !strings.Contains(strings.Join(screen, "\n"), "MYSQL/MARIADB") {
				t.Errorf("a MySQL/MariaDB server runs here, but watch at %d columns has no MYSQL/MARIADB section:\n%s", width, strings.Join(screen, "\n"))
			}
			p.tmux("send-keys", "q")
			checkRestored(t, p.waitFor("__STTY__"), "0")
		})
	}
}

// --wide keeps every column and whole lines on a narrow terminal, as a
// pipe gets them; a pipe is not fitted, COLUMNS fits it.
func TestWideAndPipesAreNotFitted(t *testing.T) {
	p := newPane(t, 80, 50)
	for _, cmd := range []string{dbmem + " report --wide", dbmem + " report | cat", dbmem + " plan --wide"} {
		_, lines := p.run(cmd)
		if len(p.tooWide(lines)) == 0 {
			t.Errorf("%s: no line wider than 80 columns; want the whole text", cmd)
		}
		if strings.Contains(strings.Join(lines, "\n"), "not shown at") {
			t.Errorf("%s dropped columns", cmd)
		}
	}
	_, lines := p.run("COLUMNS=100 " + dbmem + " report | cat")
	p.width = 100
	if bad := p.tooWide(lines); len(bad) > 0 {
		t.Errorf("COLUMNS=100 in a pipe: lines wider than 100:\n%s", strings.Join(bad, "\n"))
	}
}

// mysqlRuns reports whether a mysqld or mariadbd runs on this host.
func mysqlRuns() bool {
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, c := range comms {
		if b, err := os.ReadFile(c); err == nil && (string(b) == "mariadbd\n" || string(b) == "mysqld\n") {
			return true
		}
	}
	return false
}
