package mysql

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// TestConnectorPasswordToProvenServer: a MariaDB run by mysql (a trusted
// account), proven by its socket, gets MYSQL_PWD and the password of a
// ~/.my.cnf [client] group that names no other server; a group naming
// another port or socket keeps its password, and dbmem says why.
func TestConnectorPasswordToProvenServer(t *testing.T) {
	s := mysqltest.Start(t, nil)
	if _, err := s.DB(t).Exec("CREATE USER 'pwuser'@'localhost' IDENTIFIED BY 'my-5ecret'"); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv("MYSQL_PWD", "")
	os.Unsetenv("MYSQL_PWD")
	in := discoverTest(t, s, false)
	live := func() (Live, error) {
		c := Connector{FS: linux.DefaultFS(), Options: ConnOptions{User: "pwuser", Socket: s.Socket, HomeDir: home, Trust: servertrust.Policy{}}}
		return c.Live(context.Background(), in)
	}
	t.Setenv("MYSQL_PWD", "my-5ecret")
	if l, err := live(); err != nil || !strings.Contains(l.As, fmt.Sprintf("server proven: pid %d run by mysql", s.PID)) {
		t.Errorf("MYSQL_PWD to a proven server of mysql: %q %v", l.As, err)
	}
	os.Unsetenv("MYSQL_PWD")
	for cnf, want := range map[string]string{
		"[client]\npassword=my-5ecret\n":                                                "",
		"[client]\npassword=my-5ecret\nsocket=" + s.Socket + "\n":                       "",
		"[client]\npassword=my-5ecret\nport=1\n":                                        "it names port 1",
		"[client]\npassword=my-5ecret\nsocket=/run/mysqld/other.sock\n":                 "it names socket /run/mysqld/other.sock",
		fmt.Sprintf("[client]\npassword=my-5ecret\nhost=db.example\nport=%d\n", s.Port): "it names host db.example",
	} {
		if err := os.WriteFile(filepath.Join(home, ".my.cnf"), []byte(cnf), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := live()
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), "no password sent: the password of ~/.my.cnf is not for this server: "+want)) {
			t.Errorf("~/.my.cnf %q: %v, want %q", cnf, err, want)
		}
	}
}
