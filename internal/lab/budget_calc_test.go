package lab

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/budget"
)

func u64(v uint64) *uint64 { return &v }

// budgetRuns are a uniform-small and a dbmem run with the figures given.
func budgetRuns(peak, total, limit, smallTemp, dbmemTemp uint64, kills *uint64) *BudgetResult {
	q := []QueryStats{{Name: "sort", Completed: 3}}
	return &BudgetResult{Budget: &budget.Result{TotalBytes: total, LimitBytes: limit, LimitSource: "cgroup"},
		Configs: []*ConfigRun{
			{Name: ConfigSmall, TempBytes: u64(smallTemp), Queries: q, OLTP: OLTPRun{Transactions: 10}},
			{Name: ConfigDBMem, TempBytes: u64(dbmemTemp), PeakPrivateBytes: u64(peak), BudgetBytes: u64(total), OOMKills: kills,
				Queries: q, OLTP: OLTPRun{Transactions: 10}},
		}}
}

func TestBudgetChecks(t *testing.T) {
	const g = 1 << 30
	for _, c := range []struct {
		name string
		r    *BudgetResult
		want [4]bool
		says string
	}{
		{"all hold", budgetRuns(g/4, g, 2*g, 100, 50, u64(0)), [4]bool{true, true, true, true}, ""},
		{"an OOM kill", budgetRuns(g/4, g, 2*g, 100, 50, u64(1)), [4]bool{false, true, true, true}, "1 OOM kills"},
		{"kills not counted", budgetRuns(g/4, g, 2*g, 100, 50, nil), [4]bool{false, true, true, true}, "does not count OOM kills"},
		{"peak above the budget", budgetRuns(2*g, g, 2*g, 100, 50, u64(0)), [4]bool{true, false, true, true}, "vs budget"},
		{"the budget above its limit", budgetRuns(g/4, 3*g, 2*g, 100, 50, u64(0)), [4]bool{true, false, true, true}, "exceeds its own limit"},
		{"as many temp bytes", budgetRuns(g/4, g, 2*g, 100, 100, u64(0)), [4]bool{true, true, false, true}, "100%"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := BudgetChecks(c.r)
			var all []string
			for i, x := range got {
				all = append(all, x.Detail)
				if x.Pass != c.want[i] {
					t.Errorf("%s: pass %v, want %v (%s)", x.Name, x.Pass, c.want[i], x.Detail)
				}
			}
			if !strings.Contains(strings.Join(all, "\n"), c.says) {
				t.Errorf("details %q lack %q", all, c.says)
			}
		})
	}
	r := budgetRuns(g/4, g, 2*g, 100, 50, u64(0))
	r.Configs[1].OLTP = OLTPRun{Failed: 2, Error: "pgbench: FATAL: sorry, too many clients already"}
	if x := BudgetChecks(r)[3]; x.Pass || !strings.Contains(x.Detail, "2 clients aborted") {
		t.Errorf("refused clients: %+v", x)
	}
	if x := BudgetChecks(&BudgetResult{}); x[0].Pass || !strings.Contains(x[0].Detail, "did not run") {
		t.Errorf("no dbmem run: %+v", x)
	}
}

func TestResolveBudget(t *testing.T) {
	c, err := ResolveBudget(BudgetOptions{Common: Common{Quick: true}})
	if err != nil || c.LimitBytes != 2<<30 || c.SharedBuffersBytes != 512<<20 || c.OLTPClients != 16 || c.Rounds != 1 || len(c.Queries) != 3 {
		t.Errorf("quick: %+v, %v", c, err)
	}
	for _, o := range []BudgetOptions{{LimitBytes: 256 << 20}, {OLTPClients: 500}, {Reporters: -1}, {FactRows: 10}, {Rounds: 50}} {
		if _, err := ResolveBudget(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
