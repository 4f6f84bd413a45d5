package watch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// A PostgreSQL instance whose port was not read (postmaster.pid unreadable,
// no verified connection: a non-root run) shows "?" in the table and the
// top lists, and no port in the JSON: never 0 or ":0".
func TestUnknownPostgresPortIsNotZero(t *testing.T) {
	kb := func(n uint64) *uint64 { v := n << 10; return &v }
	proc := func(pid, ppid int, role postgres.Role) postgres.Proc {
		return postgres.Proc{Process: linux.Process{PID: pid, PPid: ppid, Comm: "postgres",
			Status: linux.Status{RssAnonBytes: kb(2048), VmPTEBytes: kb(64), VmSwapBytes: kb(0)}},
			Title: postgres.Title{Role: role}}
	}
	in := &postgres.Instance{PostmasterPID: 4242, DataDir: "/srv/pg/data", Version: "15",
		Processes: []postgres.Proc{proc(4242, 1, postgres.RolePostmaster), proc(4243, 4242, postgres.RoleClient)}}
	snap := &snapshot.Snapshot{TakenAt: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC), Postgres: []*postgres.Instance{in}}
	var procs []linux.Process
	for _, p := range in.Processes {
		procs = append(procs, p.Process)
	}
	f := (&Watcher{}).Frame(&sampler.Sample{Mode: sampler.Discover, Snapshot: snap, Processes: procs})
	if len(f.Instances) != 1 || f.Instances[0].Port != nil {
		t.Fatalf("instances %+v: want one with no port", f.Instances)
	}
	var text bytes.Buffer
	if err := Render(&text, f, RenderOptions{}); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range strings.Split(text.String(), "\n") {
		if fs := strings.Fields(l); len(fs) > 1 && fs[1] == "/srv/pg/data" {
			found = fs[0] == "?"
		}
	}
	if !found || strings.Contains(text.String(), " :0") || !strings.Contains(text.String(), "client backend :?") {
		t.Errorf("want the row's port and the top lists' as ?, never 0:\n%s", text.String())
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"port":`) {
		t.Errorf("JSON has a port for an instance whose port is not known: %s", b)
	}
}

// A connected server's line: dbmem's own connection is not one of its
// connections, a default counts as known only when every option file was
// read, and the buffer pool's page size only with the pool's size.
func TestMySQLServerLine(t *testing.T) {
	at := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	in := &mysql.Instance{PID: 7, Flavor: mysql.MariaDB, Connected: true, Status: map[string]string{"threads_connected": "1"},
		Settings: mysql.Settings{"port": {Value: "3307", Source: mysql.FromServer}, "max_connections": {Value: "151", Source: mysql.FromDefault}},
		Memory:   mysql.Memory{BufferPool: &mysql.BufferPool{PageSizeBytes: 4096, SizeBytes: 128 << 20}}}
	m := mysqlServer(in, linux.Host{}, at, false)
	if m.Port == nil || *m.Port != 3307 || m.PortSource != "server" || m.Connections == nil || *m.Connections != 0 ||
		m.MaxConnections == nil || *m.MaxConnections != 151 || m.BufferPoolBytes != nil || m.BufferPoolPageSizeBytes != nil {
		t.Errorf("%+v: want port 3307 from the server, 0 connections besides dbmem's, max_connections 151 (default, every file read), no buffer pool size nor its pages", m)
	}
	in.Gaps = []linux.Gap{{What: "option file /etc/mysql/my.cnf", Why: "permission denied"}}
	if m := mysqlServer(in, linux.Host{}, at, false); m.MaxConnections != nil || m.Port == nil {
		t.Errorf("an option file unread: max_connections %v (want unknown: the file may set it), port %v (want the server's)", m.MaxConnections, m.Port)
	}
	in.Connected = false
	if m := mysqlServer(in, linux.Host{}, at, false); m.Connections != nil {
		t.Errorf("not connected: connections %v, want unknown", *m.Connections)
	}
}
