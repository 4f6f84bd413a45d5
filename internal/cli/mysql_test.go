package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// reportedMySQL is a MySQL/MariaDB server as report --json shows it.
type reportedMySQL struct {
	PID        int    `json:"pid"`
	Connected  bool   `json:"connected"`
	Connection string `json:"connection"`
	Settings   map[string]struct {
		Value  string `json:"value"`
		Source string `json:"source"`
	} `json:"settings"`
}

// mysqlOf runs report --json with args and returns the server with pid.
func mysqlOf(t *testing.T, pid int, args ...string) (reportedMySQL, string) {
	t.Helper()
	code, out, stderr := run(t, append(args, "report", "--json", "--method", "status")...)
	if code != ExitOK {
		t.Fatalf("dbmem %v report: exit %d: %s", args, code, stderr)
	}
	var doc struct {
		Snapshot struct {
			MySQL []reportedMySQL `json:"mysql"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, m := range doc.Snapshot.MySQL {
		if m.PID == pid {
			return m, out + stderr
		}
	}
	t.Fatalf("dbmem %v report: no MySQL server with pid %d", args, pid)
	return reportedMySQL{}, ""
}

// TestMySQLConnectionFlags starts a MariaDB whose max_connections is 77 in
// its my.cnf and 123 in the running server (SET GLOBAL): only a read over
// SQL shows 123. The flags must reach the connection (report, and a capture
// replayed with --from).
func TestMySQLConnectionFlags(t *testing.T) {
	s := mysqltest.Start(t, map[string]string{"max_connections": "77"})
	db := s.DB(t)
	const pwd = "dbmem-test-Pw-4711"
	for _, q := range []string{"SET GLOBAL max_connections = 123",
		"CREATE USER 'dbmem_tcp'@'127.0.0.1' IDENTIFIED BY '" + pwd + "'", "CREATE USER 'dbmem_tcp'@'localhost' IDENTIFIED BY '" + pwd + "'"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// Another name for the server's socket: a connection through it proves
	// --mysql-socket was used, not the socket found in my.cnf.
	alias := filepath.Join(t.TempDir(), "alias.sock")
	if err := os.Symlink(s.Socket, alias); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MYSQL_PWD", "")
	os.Unsetenv("MYSQL_PWD")

	t.Run("socket", func(t *testing.T) {
		m, _ := mysqlOf(t, s.PID, "--mysql-socket", alias)
		wantServer(t, m, "connected as root via "+alias)
	})
	t.Run("tcp with MYSQL_PWD", func(t *testing.T) {
		t.Setenv("MYSQL_PWD", pwd)
		tcp := []string{"--mysql-host", "127.0.0.1", "--mysql-port", fmt.Sprint(s.Port), "--mysql-user", "dbmem_tcp"}
		// The test server has no TLS: the password does not cross TCP in clear unless allowed.
		m, all := mysqlOf(t, s.PID, tcp...)
		if m.Connected || !strings.Contains(m.Connection, "no password sent: the server offers no TLS") {
			t.Errorf("MYSQL_PWD over TCP without TLS: connected %v, %q", m.Connected, m.Connection)
		}
		m, all2 := mysqlOf(t, s.PID, append(tcp, "--allow-cleartext-password")...)
		wantServer(t, m, fmt.Sprintf("connected as dbmem_tcp via tcp 127.0.0.1:%d", s.Port))
		if strings.Contains(all+all2, pwd) {
			t.Error("the password appears in the output")
		}
	})
	t.Run("tcp with a wrong MYSQL_PWD", func(t *testing.T) {
		t.Setenv("MYSQL_PWD", "wrong-"+pwd)
		m, all := mysqlOf(t, s.PID, "--mysql-host", "127.0.0.1", "--mysql-port", fmt.Sprint(s.Port), "--mysql-user", "dbmem_tcp", "--allow-cleartext-password")
		if m.Connected || !strings.Contains(m.Connection, "Access denied") || m.Settings["max_connections"].Value != "77" {
			t.Errorf("wrong password: connected %v, %q, max_connections %+v", m.Connected, m.Connection, m.Settings["max_connections"])
		}
		if strings.Contains(all, pwd) {
			t.Error("the password appears in the output")
		}
	})
	t.Run("another port", func(t *testing.T) {
		m, _ := mysqlOf(t, s.PID, "--mysql-socket", alias, "--mysql-port", fmt.Sprint(s.Port+1))
		if m.Connected || !strings.Contains(m.Connection, "selects another server") {
			t.Errorf("--mysql-port of another server: connected %v, %q", m.Connected, m.Connection)
		}
	})
	t.Run("no-connect", func(t *testing.T) {
		m, _ := mysqlOf(t, s.PID, "--mysql-socket", alias, "--no-connect")
		if m.Connected || m.Settings["max_connections"].Value != "77" || m.Settings["max_connections"].Source != "config file" {
			t.Errorf("--no-connect: connected %v (%q), max_connections %+v", m.Connected, m.Connection, m.Settings["max_connections"])
		}
	})
	t.Run("capture", func(t *testing.T) {
		b := filepath.Join(t.TempDir(), "b.tar.gz")
		if code, out, stderr := run(t, "capture", "-o", b, "--fast", "--mysql-socket", alias); code != ExitOK {
			t.Fatalf("capture: exit %d\n%s%s", code, out, stderr)
		}
		m, _ := mysqlOf(t, s.PID, "--from", b)
		wantServer(t, m, "connected as root via "+alias)
	})
}

// wantServer: settings read over SQL from the running server.
func wantServer(t *testing.T, m reportedMySQL, connection string) {
	t.Helper()
	mc := m.Settings["max_connections"]
	if !m.Connected || !strings.HasPrefix(m.Connection, connection+" (") || mc.Value != "123" || mc.Source != "server" {
		t.Errorf("connected %v (%q, want %q), max_connections %+v (want 123 from the server)", m.Connected, m.Connection, connection, mc)
	}
}
