package mysql

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// TestConnectorChoosesEndpoint: --mysql-host connects over TCP to the
// server's port (3306 when it has none); --mysql-port keeps other servers
// unconnected without a connection attempt.
func TestConnectorChoosesEndpoint(t *testing.T) {
	for _, c := range []struct {
		opt  ConnOptions
		port int
		want string
	}{
		{ConnOptions{Host: "127.0.0.1"}, 3307, "tcp 127.0.0.1:3307"},
		{ConnOptions{Host: "db.local"}, 0, "tcp db.local:3306"},
		{ConnOptions{Host: "::1"}, 3306, "tcp [::1]:3306"},
	} {
		eps, err := Connector{FS: linux.DefaultFS(), Options: c.opt}.endpoints(&Instance{PID: 1, Port: c.port})
		if err != nil || len(eps) != 1 || eps[0].String() != c.want {
			t.Errorf("%+v port %d: %v %v, want %s", c.opt, c.port, eps, err, c.want)
		}
	}
	_, err := Connector{FS: linux.DefaultFS(), Options: ConnOptions{Port: 3307}}.Live(context.Background(), &Instance{PID: 1, Port: 3306})
	if err == nil || !strings.Contains(err.Error(), "--mysql-port 3307 selects another server") {
		t.Errorf("a server on another port: %v", err)
	}
}

// TestConnectorRefusesUnprovenSocket: a socket that is not the process's
// (here: a MariaDB's socket offered for this test process) is refused
// before dialing, with the reason given once although it has two names
// (the path and /proc/PID/root/path).
func TestConnectorRefusesUnprovenSocket(t *testing.T) {
	s := mysqltest.Start(t, nil)
	saved := defaultSockets
	defaultSockets = nil // never the host's server
	t.Cleanup(func() { defaultSockets = saved })
	in := &Instance{PID: os.Getpid(), Socket: s.Socket}
	c := Connector{FS: linux.DefaultFS(), Options: ConnOptions{User: "root"}}
	if eps, err := c.endpoints(in); err != nil || len(eps) != 2 {
		t.Fatalf("endpoints %v %v, want the socket and its /proc/PID/root name", eps, err)
	}
	_, err := c.Live(context.Background(), in)
	if err == nil {
		t.Fatal("connected to a socket this process does not hold")
	}
	want := fmt.Sprintf("%s: not proven to be pid %d's socket: socket %s is owned by mysql", s.Socket, os.Getpid(), s.Socket)
	if n := strings.Count(err.Error(), want); n != 1 {
		t.Errorf("reason %q given %d times: %v", want, n, err)
	}
}

func TestGapOnce(t *testing.T) {
	in := &Instance{}
	in.gap("settings over SQL", "refused")
	in.gap("settings over SQL", "refused")
	in.gap("settings over SQL", "timeout")
	if len(in.Gaps) != 2 || joinUnique([]string{"a", "b", "a", "a"}) != "a; b" {
		t.Errorf("gaps %v", in.Gaps)
	}
}
