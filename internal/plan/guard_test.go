package plan

import (
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
)

// TestServiceBudgets: MemoryHigh is RAM less the huge page pool and the
// other processes (the service keeps its shared memory and page cache),
// MemoryMax 10% above; none under a cgroup limit or for a unit the
// database was not seen running in.
func TestServiceBudgets(t *testing.T) {
	const mib = 1 << 20
	in := advise.PlanInput{Instances: []advise.PlannedInstance{{Subject: "pg", Unit: "postgresql@15-main.service"}}}
	res := advise.PlanResult{Budget: &budget.Result{Subject: "pg", LimitSource: budget.FromRAM, LimitLines: []budget.Line{
		{Name: "RAM", Bytes: 8192 * mib}, {Name: "huge page pool", Bytes: 1024 * mib, Minus: true},
		{Name: "shared memory", Bytes: 100 * mib, Minus: true}, {Name: "co-hosted processes", Bytes: 1000 * mib, Minus: true},
		{Name: "page-cache reserve", Bytes: 1638 * mib, Minus: true}}}}
	running := map[string]bool{"postgresql@15-main.service": true}
	bs := serviceBudgets(in, res, running)
	if len(bs) != 1 || bs[0].Bytes != 6168*mib || bs[0].Unit != "postgresql@15-main.service" {
		t.Fatalf("budgets %+v", bs)
	}
	s := advise.ServiceMemorySettings(bs)
	if len(s) != 2 || s[0].Name != "MemoryHigh" || s[0].Value != "6168M" || s[1].Value != "6785M" {
		t.Errorf("settings %+v", s)
	}
	res.Budget.LimitSource = budget.FromCgroup
	if bs := serviceBudgets(in, res, running); len(bs) != 0 {
		t.Errorf("under a cgroup limit: %+v", bs)
	}
	res.Budget.LimitSource = budget.FromRAM
	if bs := serviceBudgets(in, res, map[string]bool{"mariadb.service": true}); len(bs) != 0 {
		t.Errorf("a unit the database was not seen in: %+v", bs)
	}
}
