package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestDiscoverPrivateAuto discovers a real instance whose 5 readers each
// mapped 200 MB of shared_buffers, with measure.Auto and with
// smaps_rollup: the readers are measured by the fast path (Private set, no
// Rollup), every process's private cost is exact and equal to the kB, and
// a gap says that Pss and Pss_Shmem were not read.
//
// The two methods read one after the other, and a background process
// (checkpointer, walwriter, the launchers) may allocate in between on a
// busy host: each process is judged on the closest of up to 5 rounds.
func TestDiscoverPrivateAuto(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the fast path needs root")
	}
	c := pgtest.Start(t, map[string]string{"shared_buffers": "256MB", "max_connections": "20", "autovacuum": "off"})
	r := pgtest.Readers(t, c, 5, 200<<20)
	idle := map[int]bool{}
	for _, pid := range r.PIDs {
		idle[pid] = true
	}
	var auto *postgres.Instance
	miss := map[int]string{}
	for round := 0; round < 5 && (round == 0 || len(miss) > 0); round++ {
		auto = discover(t, c.PID, postgres.Options{Method: measure.Auto})
		smaps := discover(t, c.PID, postgres.Options{Method: measure.Smaps})
		miss = privateMismatches(auto, smaps, idle, round, miss)
	}
	for _, m := range miss {
		t.Error(m)
	}
	for _, pid := range r.PIDs {
		p := procOf(t, auto, pid)
		if p.Private == nil || p.Private.Method != "fast" || p.Rollup != nil {
			t.Errorf("reader %d: Private %+v, Rollup %v: want the fast path", pid, p.Private, p.Rollup != nil)
		}
	}
	if !hasGap(auto, "Pss and Pss_Shmem of") {
		t.Errorf("no gap for the Pss columns the fast path does not read: %v", auto.Gaps)
	}
}

// privateMismatches compares one round's two readings. In the first round
// every process is judged; later rounds only re-judge those that missed.
// The idle readers do not move between the readings: equal to the kB.
// Background processes keep allocating: within 2% (and 64 kB).
func privateMismatches(auto, smaps *postgres.Instance, idle map[int]bool, round int, before map[int]string) map[int]string {
	want := map[int]uint64{}
	for _, p := range smaps.Processes {
		want[p.PID], _, _ = p.PrivateCost()
	}
	miss := map[int]string{}
	for _, p := range auto.Processes {
		w, ok := want[p.PID]
		if _, again := before[p.PID]; !ok || round > 0 && !again {
			continue
		}
		cost, exact, _ := p.PrivateCost()
		tol := uint64(0)
		if !idle[p.PID] {
			tol = max(w/50, 64<<10)
		}
		if !exact || absDiff(cost>>10, w>>10) > tol>>10 {
			miss[p.PID] = fmt.Sprintf("PID %d (%s): private %d kB exact %v, smaps_rollup gives %d kB (round %d)", p.PID, p.Role, cost>>10, exact, w>>10, round+1)
		}
	}
	return miss
}

func discover(t *testing.T, pm int, opt postgres.Options) *postgres.Instance {
	t.Helper()
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.PostmasterPID == pm {
			return in
		}
	}
	t.Fatalf("instance %d not found", pm)
	return nil
}

func procOf(t *testing.T, in *postgres.Instance, pid int) postgres.Proc {
	t.Helper()
	p, ok := in.Process(pid)
	if !ok {
		t.Fatalf("process %d not found", pid)
	}
	return p
}

func hasGap(in *postgres.Instance, prefix string) bool {
	for _, g := range in.Gaps {
		if strings.HasPrefix(g.What, prefix) {
			return true
		}
	}
	return false
}

func absDiff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}
