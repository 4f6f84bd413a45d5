package dblog

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// Recorded on this machine: MariaDB 10.11.19 started by
// TestRootLiveMariaDBKilledAndRestarted, SIGKILLed after writes, restarted.
func TestRealMariaDBRestart(t *testing.T) {
	b, err := os.ReadFile("testdata/mariadb-10.11-sigkill-restart-error.log")
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseMySQL(strings.NewReader(string(b)))
	if err != nil || len(c) != 1 {
		t.Fatalf("crashes %+v (%v)", c, err)
	}
	at := time.Date(2026, 11, 22, 21, 59, 53, 0, time.UTC)
	if pv(c[0].KilledPID) != 8795 || pv(c[0].ServerPID) != 8810 || !c[0].Time.Equal(at) || c[0].ZoneKnown ||
		!c[0].RecoveryAt.Equal(at.Add(time.Second)) || !c[0].ReadyAt.Equal(at.Add(time.Second)) || c[0].Incomplete {
		t.Errorf("crash = %+v", c[0])
	}
}

// HAND-WRITTEN in the error log formats of MySQL 8.0 and of MySQL 5.5.
func TestMySQLFormats(t *testing.T) {
	mysql8 := `2026-11-22T21:00:00.000001Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.36) starting as process 4001
2026-11-22T21:00:02.000001Z 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '8.0.36'  socket: '/var/run/mysqld/mysqld.sock'  port: 3306  MySQL Community Server - GPL.
2026-11-22T21:29:05.000001Z 0 [System] [MY-010116] [Server] /usr/sbin/mysqld (mysqld 8.0.36) starting as process 4242
2026-11-22T21:29:06.000001Z 1 [Note] [MY-012552] [InnoDB] Database was not shutdown normally!
2026-11-22T21:29:09.000001Z 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. Version: '8.0.36'
`
	c, _ := ParseMySQL(strings.NewReader(mysql8))
	if len(c) != 1 || pv(c[0].KilledPID) != 4001 || pv(c[0].ServerPID) != 4242 || !c[0].ZoneKnown ||
		recovery(c[0]) != 4*time.Second || c[0].RecoveryAt.Second() != 6 {
		t.Errorf("mysql 8: %+v", c)
	}
	mysql55 := `161122 21:00:00 [Note] /usr/sbin/mysqld (mysqld 5.5.62) starting as process 900 ...
161122 21:00:01 [Note] /usr/sbin/mysqld: ready for connections.
161122 21:10:00 [Note] /usr/sbin/mysqld: Shutdown complete
161122 21:11:00 [Note] /usr/sbin/mysqld (mysqld 5.5.62) starting as process 901 ...
161122 21:11:01 [Note] /usr/sbin/mysqld: ready for connections.
161122 21:29:01 [ERROR] mysqld got signal 11 ;
161122 21:29:03 [Note] /usr/sbin/mysqld (mysqld 5.5.62) starting as process 902 ...
161122 21:29:03 [Note] InnoDB: Starting crash recovery.
`
	c, _ = ParseMySQL(strings.NewReader(mysql55))
	if len(c) != 1 || pv(c[0].KilledPID) != 901 || pv(c[0].Signal) != 11 || !c[0].Incomplete ||
		!c[0].Time.Equal(time.Date(2016, 11, 22, 21, 29, 3, 0, time.UTC)) {
		t.Errorf("mysql 5.5 (a clean shutdown, then a crash): %+v", c)
	}
	// MariaDB pads a one-digit hour with a space: "2026-11-23  0:52:21".
	padded := `2026-11-23  0:52:21 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision x server_uid y as process 13483
2026-11-23  0:52:21 0 [Note] mariadbd: ready for connections.
2026-11-23  0:52:22 0 [Note] Starting MariaDB 10.11.19-MariaDB-0+deb12u1 source revision x server_uid z as process 13502
2026-11-23  0:52:22 0 [Note] InnoDB: Starting crash recovery from checkpoint LSN=9616267
2026-11-23  0:52:22 0 [Note] mariadbd: ready for connections.
`
	c, _ = ParseMySQL(strings.NewReader(padded))
	if len(c) != 1 || pv(c[0].KilledPID) != 13483 || pv(c[0].ServerPID) != 13502 ||
		!c[0].Time.Equal(time.Date(2026, 11, 23, 0, 52, 22, 0, time.UTC)) {
		t.Errorf("MariaDB space-padded hour: %+v", c)
	}
}

func recovery(c CrashRestart) time.Duration {
	d, _ := c.RecoveryDuration()
	return d
}

// ParseMySQL reads a MySQL or MariaDB error log with default Options.
func ParseMySQL(r io.Reader) ([]CrashRestart, error) { return Options{}.ParseMySQL(r) }

// ParseMySQL reads a MySQL or MariaDB error log and returns the restarts
// after a crash; see ReadMySQL.
func (o Options) ParseMySQL(r io.Reader) ([]CrashRestart, error) {
	l, err := o.ReadMySQL(r)
	return l.Crashes, err
}
