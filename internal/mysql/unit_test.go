package mysql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestRunningUnit: the server's unit is found as PostgreSQL's is (its
// cgroup, the deepest .service that starts it); the root cgroup (an init
// script, no systemd) is no unit, said; without a cgroup read, the
// packages' unit only for their data directory and when it is installed.
func TestRunningUnit(t *testing.T) {
	root := t.TempDir()
	units := filepath.Join(root, "lib", "systemd", "system")
	os.MkdirAll(units, 0o755)
	os.WriteFile(filepath.Join(units, "cron.service"), []byte("[Service]\nExecStart=/usr/sbin/cron -f\n"), 0o644)
	os.WriteFile(filepath.Join(units, "db.service"), []byte("[Service]\nExecStart=/usr/sbin/mariadbd --datadir=/srv/db\n"), 0o644)
	os.WriteFile(filepath.Join(units, "mariadb.service"), []byte("[Service]\nExecStart=/usr/sbin/mariadbd\n"), 0o644)
	for _, c := range []struct{ cgroup, unit, why string }{
		{"0::/system.slice/mariadb.service\n", "mariadb.service", ""},
		{"0::/system.slice/db.service\n", "db.service", ""},
		{"0::/system.slice/cron.service\n", "", "cron.service, which does not start MySQL/MariaDB"},
		{"9:name=systemd:/\n", "", "no service unit runs it (started by hand or by an init script"},
	} {
		proc := t.TempDir()
		os.MkdirAll(filepath.Join(proc, "42"), 0o755)
		os.WriteFile(filepath.Join(proc, "42", "cgroup"), []byte(c.cgroup), 0o644)
		fs := linux.FS{Proc: proc, Sys: t.TempDir(), Root: root}
		unit, why := RunningUnit(fs, &Instance{PID: 42, Flavor: MariaDB, DataDir: "/var/lib/mysql/"})
		if unit != c.unit || c.why == "" && why != "" || !strings.Contains(why, c.why) {
			t.Errorf("cgroup %q: unit %q (%s), want %q (%s)", c.cgroup, unit, why, c.unit, c.why)
		}
	}
	fs := linux.FS{Proc: t.TempDir(), Sys: t.TempDir(), Root: root}
	if u, _ := RunningUnit(fs, &Instance{PID: 42, Flavor: MariaDB, DataDir: "/var/lib/mysql/"}); u != "mariadb.service" {
		t.Errorf("no cgroup read, the packages' data directory: %q", u)
	}
	if u, why := RunningUnit(fs, &Instance{PID: 42, Flavor: MariaDB, DataDir: "/srv/db"}); u != "" || !strings.Contains(why, "not the packages' data directory with their unit installed") {
		t.Errorf("no cgroup read, /srv/db: %q %q", u, why)
	}
	fs.Root = t.TempDir() // no unit installed
	if u, why := RunningUnit(fs, &Instance{PID: 42, Flavor: MySQL, DataDir: "/var/lib/mysql"}); u != "" || why == "" {
		t.Errorf("no cgroup read, no unit installed: %q %q", u, why)
	}
}
