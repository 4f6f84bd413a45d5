package mysql

import (
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestKnown: a built-in default is the server's value only when every
// option file it reads was read; an unknown port is not taken from the
// defaults (3306 would name another server's port as this one's).
func TestKnown(t *testing.T) {
	in := &Instance{PID: 7, Flavor: MariaDB, Settings: Defaults(MariaDB)}
	in.Settings.set("datadir", "/srv/db", FromConfigFile, "/etc/mysql/my.cnf")
	in.applyLocations()
	if !in.Known("port") || in.Port != 3306 {
		t.Errorf("every option file read: Known(port) %v, Port %d; want the default 3306", in.Known("port"), in.Port)
	}
	in.Gaps = append(in.Gaps, linux.Gap{What: "option file /etc/mysql/mariadb.conf.d/50-server.cnf", Why: "permission denied"})
	in.applyLocations()
	if in.Known("port") || in.Port != 0 || in.Name() != "mariadb pid 7" {
		t.Errorf("an option file unread: Known(port) %v, Port %d, Name %q; want unknown", in.Known("port"), in.Port, in.Name())
	}
	if !in.Known("datadir") {
		t.Error("a value from an option file that was read is known")
	}
	in.Settings.set("port", "3307", FromServer, "")
	in.applyLocations()
	if !in.Known("port") || in.Port != 3307 {
		t.Errorf("the server said 3307: Known %v, Port %d", in.Known("port"), in.Port)
	}
	if in.Known("no_such_variable") {
		t.Error("a setting nobody gave is not known")
	}
}
