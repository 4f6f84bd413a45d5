package plan

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestRunningInstance plans a running server: unchanged, its need is SHOW
// shared_memory_size_in_huge_pages; with a larger shared_buffers it is asked
// of a throwaway cluster.
func TestRunningInstance(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "256MB", "huge_pages": "off", "max_connections": "60"})
	ctx := context.Background()
	s, err := snapshot.Take(ctx, snapshot.Options{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}})
	if err != nil {
		t.Fatal(err)
	}
	in, err := Build(ctx, Request{Snapshot: s, Port: c.Port})
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Instances) != 1 {
		t.Fatalf("%d instances planned, want the one on port %d", len(in.Instances), c.Port)
	}
	pi := in.Instances[0]
	shown := findInstance(t, s, c.PID).Settings.String("shared_memory_size_in_huge_pages")
	if pi.Need.Source != "SHOW shared_memory_size_in_huge_pages" || !pi.Need.Exact || shown == "" || u64(pi.Need.Pages) != shown {
		t.Errorf("unchanged need %+v, SHOW says %s", pi.Need, shown)
	}
	if pi.SharedIn4KBytes < 256<<20 || pi.HeldPages != 0 || pi.Current["huge_pages"] != "off" {
		t.Errorf("instance now: %+v", pi)
	}
	changed, err := Build(ctx, Request{Snapshot: s, Port: c.Port, Changes: map[string]string{"shared_buffers": "512MB"}})
	if err != nil {
		t.Fatal(err)
	}
	n := changed.Instances[0].Need
	if !strings.Contains(n.Source, "throwaway") || n.Pages < pi.Need.Pages+120 || n.Pages > pi.Need.Pages+135 {
		t.Errorf("with 256 MB more shared_buffers: %+v (was %d pages)", n, pi.Need.Pages)
	}
	r := advise.Plan(changed)
	if s, ok := findSetting(r, finding.TargetPostgres, "shared_buffers"); !ok || s.Value != "512MB" || s.Current != "256MB" {
		t.Errorf("planned shared_buffers %+v", s)
	}
	if _, err := Build(ctx, Request{Snapshot: s, Port: 1}); err == nil || !strings.Contains(err.Error(), "no running PostgreSQL instance on port 1") {
		t.Errorf("unknown port: %v", err)
	}
}

func TestHostProcesses(t *testing.T) {
	procs, _, err := HostProcesses(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range procs {
		if p.PID == os.Getpid() {
			if !p.Status.HasMM || p.Status.VmRSSBytes == nil || *p.Status.VmRSSBytes == 0 || p.OOMScore == nil || p.OOMScoreAdj == nil {
				t.Errorf("this test process as read: %+v", p)
			}
			return
		}
	}
	t.Errorf("%d processes, this one (%d) not among them", len(procs), os.Getpid())
}

func findInstance(t *testing.T, s *snapshot.Snapshot, pid int) *postgres.Instance {
	t.Helper()
	for _, in := range s.Postgres {
		if in.PostmasterPID == pid {
			return in
		}
	}
	t.Fatalf("postmaster %d not in the snapshot", pid)
	return nil
}

func findSetting(r advise.PlanResult, tg finding.Target, name string) (finding.Setting, bool) {
	for _, s := range r.Settings {
		if s.Target == tg && s.Name == name {
			return s, true
		}
	}
	return finding.Setting{}, false
}

func u64(n uint64) string { return strconv.FormatUint(n, 10) }
