package postgres

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestRunningUnitFromCgroup: the unit comes from the postmaster's cgroup
// (v2's unified line, v1's name=systemd); a unit that does not start
// PostgreSQL, a login session and the root cgroup are no unit, each said.
func TestRunningUnitFromCgroup(t *testing.T) {
	root := t.TempDir()
	units := filepath.Join(root, "lib", "systemd", "system")
	os.MkdirAll(units, 0o755)
	os.WriteFile(filepath.Join(units, "cron.service"), []byte("[Service]\nExecStart=/usr/sbin/cron -f\n"), 0o644)
	os.WriteFile(filepath.Join(units, "mydb.service"), []byte("[Service]\nExecStart=/usr/lib/postgresql/15/bin/postgres -D /srv/db\n"), 0o644)
	for _, c := range []struct{ cgroup, unit, why string }{
		{"0::/system.slice/system-postgresql.slice/postgresql@15-main.service\n", "postgresql@15-main.service", ""},
		{"12:memory:/x\n1:name=systemd:/system.slice/postgresql-16.service\n", "postgresql-16.service", ""},
		{"0::/system.slice/mydb.service\n", "mydb.service", ""},
		{"0::/system.slice/cron.service\n", "", "cron.service, which does not start PostgreSQL"},
		{"0::/user.slice/user-0.slice/session-3.scope\n", "", "a login session"},
		{"0::/system.slice/docker-0123abcd.scope\n", "", "a scope (a container's"},
		{"0::/\n", "", "no service unit runs it"},
	} {
		proc := t.TempDir()
		os.MkdirAll(filepath.Join(proc, "42"), 0o755)
		os.WriteFile(filepath.Join(proc, "42", "cgroup"), []byte(c.cgroup), 0o644)
		fs := linux.FS{Proc: proc, Sys: t.TempDir(), Root: root}
		unit, why := RunningUnit(fs, 42, "", "/srv/db")
		if unit != c.unit || c.why == "" && why != "" || !strings.Contains(why, c.why) {
			t.Errorf("cgroup %q: unit %q (%s), want %q (%s)", c.cgroup, unit, why, c.unit, c.why)
		}
	}
	if u, why := StoppedUnit("/srv/db"); u != "" || !strings.Contains(why, "not in a packaged layout") {
		t.Errorf("stopped /srv/db: %q %q", u, why)
	}
	if u, _ := StoppedUnit("/var/lib/postgresql/15/main"); u != "postgresql@15-main.service" {
		t.Errorf("stopped Debian cluster: %q", u)
	}
	fs := linux.FS{Proc: t.TempDir(), Sys: t.TempDir(), Root: root}
	if u, _ := RunningUnit(fs, 42, "/etc/postgresql/16/main/postgresql.conf", "/srv/db"); u != "postgresql@16-main.service" {
		t.Errorf("no cgroup read, Debian's configuration: %q", u)
	}
	if u, why := RunningUnit(fs, 42, "", "/srv/db"); u != "" || !strings.Contains(why, "not in a packaged layout") {
		t.Errorf("no cgroup read, /srv/db: %q %q", u, why)
	}
}
