package bundle

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/logredact"
	"github.com/dbmem/dbmem/internal/oomlog/memcgtest"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestRootLivePostmortem (root only) provokes a real OOM kill of a
// PostgreSQL backend in a 128 MiB memory cgroup, then explains it from the
// live host (kernel log from dmesg, server log found from logging_collector
// and log_directory) and from a bundle captured right after.
func TestRootLivePostmortem(t *testing.T) {
	g := memcgtest.New(t, 128<<20) // created first: removed after the server stops
	c := pgtest.Start(t, map[string]string{"logging_collector": "on", "log_directory": "log",
		"log_filename": "postgresql-%Y-%m-%d.log", "log_line_prefix": "%m [%p] ", "lc_messages": "C"})
	pid := killBackend(t, g, c)
	ctx := context.Background()
	live := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}
	snap, err := snapshot.Take(ctx, snapshot.Options{FS: linux.DefaultFS(), Live: live})
	if err != nil {
		t.Fatal(err)
	}
	fs := linux.DefaultFS()
	_, zone := postmortem.HostZone(fs)
	boot, _ := linux.BootTime(fs)
	logs := postmortem.Gather(ctx, postmortem.GatherOptions{FS: fs, Postgres: snap.Postgres, Zone: zone})
	x := eventFor(t, postmortem.Analyze(postmortem.Input{Logs: logs, Snapshot: snap, BootTime: boot, Zone: zone}), pid)
	checkLiveEvent(t, x, pid, g)
	if !strings.Contains(x.Crash.Query, "generate_series") {
		t.Errorf("live: query = %q", x.Crash.Query)
	}

	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if _, err := WriteFile(ctx, p, CaptureOptions{FS: fs, Live: live, Version: "test"}); err != nil {
		t.Fatal(err)
	}
	b, err := Open(p, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	blogs, err := b.Logs()
	if err != nil {
		t.Fatal(err)
	}
	bsnap, err := snapshot.Take(ctx, snapshot.Options{FS: b.FS(), Live: b.Live(), Owners: b.Owners()})
	if err != nil {
		t.Fatal(err)
	}
	bx := eventFor(t, postmortem.Analyze(postmortem.Input{Logs: blogs, Snapshot: bsnap, BootTime: b.Manifest.BootTime, Zone: b.Manifest.Zone}), pid)
	checkLiveEvent(t, bx, pid, g)
	if bx.Crash.Query != logredact.QueryRedacted {
		t.Errorf("bundle: query = %q, want it redacted", bx.Crash.Query)
	}
	if !reflect.DeepEqual(bx.Crash.Downtime, x.Crash.Downtime) || !reflect.DeepEqual(bx.Victim.FreedBytes, x.Victim.FreedBytes) || !reflect.DeepEqual(bx.Time, x.Time) {
		t.Errorf("bundle and live explanations differ: %+v / %+v", bx.Crash, x.Crash)
	}
}

// killBackend OOM-kills a backend in the cgroup and waits for the
// server's restart.
func killBackend(t *testing.T, g *memcgtest.Group, c *pgcluster.Cluster) int {
	t.Helper()
	pid := pgtest.OOMKillBackend(t, g, c, "postmortem").PID
	waitRestart(t, c)
	return pid
}

// waitRestart waits until the collector's log shows the server ready twice.
func waitRestart(t *testing.T, c *pgcluster.Cluster) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(c.DataDir, "log", "postgresql-*.log"))
		for _, f := range files {
			if b, _ := os.ReadFile(f); strings.Count(string(b), "ready to accept connections") >= 2 {
				return
			}
		}
	}
	t.Fatal("the server did not log its restart")
}

func eventFor(t *testing.T, r *postmortem.Report, pid int) postmortem.Explained {
	t.Helper()
	for _, x := range r.Events {
		if x.Victim != nil && x.Victim.PID == pid {
			return x
		}
	}
	t.Fatalf("no explained kill of pid %d among %d (sources %+v)", pid, len(r.Events), r.Sources)
	return postmortem.Explained{}
}

func checkLiveEvent(t *testing.T, x postmortem.Explained, pid int, g *memcgtest.Group) {
	t.Helper()
	if x.Scope.Constraint != "memcg" || x.Scope.Cgroup != g.Path || x.Scope.LimitBytes == nil || *x.Scope.LimitBytes != g.LimitBytes {
		t.Errorf("scope = %+v, want memcg %s", x.Scope, g.Path)
	}
	if x.Victim.Role != "client backend" || x.Victim.RoleFrom != "database log" || x.Victim.AnonBytes == nil || *x.Victim.AnonBytes < 64<<20 {
		t.Errorf("victim = %+v", x.Victim)
	}
	c := x.Crash
	if c == nil || c.MatchedBy != "pid" || !c.Certain || c.KilledPID == nil || *c.KilledPID != pid || c.Downtime == nil || *c.Downtime <= 0 || len(c.Steps) < 4 {
		t.Fatalf("crash = %+v", c)
	}
	if last := c.Steps[len(c.Steps)-1]; last.What != "ready to accept connections" || last.After == nil || *last.After <= 0 {
		t.Errorf("steps = %+v", c.Steps)
	}
}
