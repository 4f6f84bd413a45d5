package watch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
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
	f := (&Watcher{}).Frame(&Sample{Mode: Discover, Snapshot: snap, Processes: procs})
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
