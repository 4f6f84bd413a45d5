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

// TestConnectorReasonsOnce: two names of one socket (the path and
// /proc/PID/root/path) lead to a server that is not the instance asked
// about; the error says so once, not once per name.
func TestConnectorReasonsOnce(t *testing.T) {
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
		t.Fatal("connected to a server whose pid file holds another PID")
	}
	if n := strings.Count(err.Error(), "socket leads to another server"); n != 1 {
		t.Errorf("reason given %d times: %v", n, err)
	}
	if !strings.Contains(err.Error(), fmt.Sprint(s.PID)) {
		t.Errorf("error %v does not name the server's PID %d", err, s.PID)
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
