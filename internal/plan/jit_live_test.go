package plan

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// mapsTap counts the maps files read.
type mapsTap struct {
	mu   sync.Mutex
	read []string
}

func (m *mapsTap) File(path string, _ []byte) {
	if strings.HasSuffix(path, "/maps") {
		m.mu.Lock()
		m.read = append(m.read, path)
		m.mu.Unlock()
	}
}
func (m *mapsTap) Dir(string, []string) {}
func (m *mapsTap) Link(string, string)  {}

// TestMeasureJITReadsOnlyGrownBackends: on a real cluster (PostgreSQL 15,
// jit on), 3 backends JIT-compile a query and 3 do not. measureJIT finds
// the 3, and reads the maps of the backends whose executable mappings grew
// since the fork only: the others' VmLib equals the postmaster's.
func TestMeasureJITReadsOnlyGrownBackends(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"max_connections": "20", "jit": "on"})
	plain := idleBackends(t, c, 3)
	compiled := idleBackends(t, c, 3, "SET jit_above_cost = 0", "SET jit_inline_above_cost = 0", "SET jit_optimize_above_cost = 0",
		`SELECT sum(g) FROM generate_series(1, 100000) g`)
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), postgres.Options{Method: measure.Status})
	if err != nil {
		t.Fatal(err)
	}
	var in *postgres.Instance
	for _, i := range ins {
		if i.PostmasterPID == c.PID {
			in = i
		}
	}
	if in == nil {
		t.Fatal("test cluster not discovered")
	}
	tap := &mapsTap{}
	fs := linux.DefaultFS()
	fs.Tap = tap
	m := &budget.Measured{}
	j := measureJIT(m, clientCosts(fs, in, true))
	if j == nil || j.Compiled != len(compiled) {
		t.Fatalf("JIT measure %+v (gaps %+v): want %d backends that compiled", j, m.Gaps, len(compiled))
	}
	for _, pid := range plain {
		for _, p := range tap.read {
			if strings.Contains(p, "/"+strconv.Itoa(pid)+"/") {
				t.Errorf("read %s: backend %d loaded no library since the fork", p, pid)
			}
		}
	}
	if len(tap.read) < len(compiled) {
		t.Errorf("read %d maps, want at least the %d of the backends that compiled: %q", len(tap.read), len(compiled), tap.read)
	}
}
