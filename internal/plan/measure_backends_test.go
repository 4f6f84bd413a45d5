package plan

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// TestJITTakenOutOfTheBaseline (issue 20, cause 2): 30 oltp backends (28
// at 1000 KiB, 2 at 1200) and 3 report backends that JIT-compiled (19866,
// 19000, 20000 KiB). By hand: JIT = median 19866 with - median 1000
// without = 18866 KiB; taken out: 1000, 134 -> 1000 (no less than the
// cheapest backend without JIT), 1134. report: median 1000, p95 (nearest
// rank 3 of 3) 1134; all 33: p95 (rank 32) 1200 KiB, not the 19866 KiB of
// the JIT-compiled minority.
func TestJITTakenOutOfTheBaseline(t *testing.T) {
	K := units.KiB
	var costs []backendCost
	for i := 0; i < 30; i++ {
		c := uint64(1000)
		if i < 2 {
			c = 1200
		}
		costs = append(costs, backendCost{role: "oltp", cost: c * K, pte: 64 * K, measurable: true, active: i == 0})
	}
	for _, c := range []uint64{19866, 19000, 20000} {
		costs = append(costs, backendCost{role: "report", cost: c * K, pte: 128 * K, measurable: true, jit: true, active: true})
	}
	m := &budget.Measured{}
	measureBackends(m, &postgres.Instance{}, costs, true)
	if m.JIT == nil || m.JIT.CostBytes != 18866*K || m.JIT.Compiled != 3 {
		t.Fatalf("JIT %+v", m.JIT)
	}
	if m.Backends != 33 || m.BaselineP95Bytes != 1200*K || m.BaselineMedianBytes != 1000*K || m.ActiveNow != 4 || m.PageTablesP95Bytes != 128*K {
		t.Errorf("overall: %+v", m)
	}
	want := map[string]budget.RoleMeasure{
		"oltp":   {Name: "oltp", Backends: 30, MedianBytes: 1000 * K, P95Bytes: 1200 * K, Active: 1},
		"report": {Name: "report", Backends: 3, MedianBytes: 1000 * K, P95Bytes: 1134 * K, Active: 3, JITCompiled: 3},
	}
	for _, r := range m.Roles {
		if r != want[r.Name] {
			t.Errorf("role %+v, want %+v", r, want[r.Name])
		}
	}
	if m.JITInBaseline != 0 {
		t.Errorf("JIT in baseline %d", m.JITInBaseline)
	}
}

// TestJITNotMeasurable: every backend compiled, none to compare with: the
// costs stay whole, and the budget is told they hold their JIT code.
func TestJITNotMeasurable(t *testing.T) {
	costs := []backendCost{{role: "r", cost: 20 * units.MiB, measurable: true, jit: true}, {role: "r", cost: 22 * units.MiB, measurable: true, jit: true}}
	m := &budget.Measured{}
	measureBackends(m, &postgres.Instance{}, costs, true)
	if m.JIT != nil || m.JITInBaseline != 2 || m.BaselineP95Bytes != 22*units.MiB || len(m.Gaps) != 1 || !strings.Contains(m.Gaps[0].Why, "not counted again") {
		t.Errorf("%+v", m)
	}
	if m.Roles[0].JITCompiled != 0 {
		t.Errorf("role says JIT taken out: %+v", m.Roles[0])
	}
}
