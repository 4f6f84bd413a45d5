package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/finding"
)

// TestPlanBudgetFieldReport: the field report's 5 GB machine (seed 001,
// 100 connections): the what-if plan sets work_mem and its companions, its
// budget's total fits its limit (the planned CommitLimit), PGTune's figures
// are beside it, and the settings are in the plan for apply and render.
func TestPlanBudgetFieldReport(t *testing.T) {
	args := []string{"--json", "plan", "--ram", "5016896kB", "--swap", "974844kB", "--shared-buffers", "1GB", "--max-connections", "100"}
	code, out, stderr := run(t, args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r advise.PlanResult
	if err := json.Unmarshal([]byte(out), &r); err != nil || r.Budget == nil {
		t.Fatalf("%v, budget %v", err, r.Budget)
	}
	b := r.Budget
	if b.LimitSource != "CommitLimit" || b.LimitBytes == 0 || !b.Fits || b.TotalBytes > b.LimitBytes || len(b.Lines) == 0 {
		t.Errorf("budget: %s limit %d, total %d, fits %v", b.LimitSource, b.LimitBytes, b.TotalBytes, b.Fits)
	}
	set := map[string]string{}
	for _, s := range r.Settings {
		if s.Target == finding.TargetPostgres {
			set[s.Name] = s.Value
		}
	}
	for _, name := range []string{"work_mem", "hash_mem_multiplier", "maintenance_work_mem", "autovacuum_work_mem", "max_parallel_workers",
		"max_parallel_workers_per_gather", "temp_buffers", "jit", "max_connections"} {
		if set[name] == "" {
			t.Errorf("the plan does not set %s", name)
		}
	}
	if set["jit"] != "off" {
		t.Errorf("jit %s on a 5 GB host where every connection may run at once", set["jit"])
	}
	var pgtune string
	for _, p := range b.Peers {
		for _, s := range p.Settings {
			if p.Tool == "PGTune" && s.Name == "work_mem" {
				pgtune = s.Value
			}
		}
	}
	if pgtune != "11612kB" {
		t.Errorf("PGTune's work_mem %q, want 11612kB (its formula for 4899 MB and 100 connections)", pgtune)
	}
	code, text, _ := run(t, args[1:]...)
	if code != ExitOK || !strings.Contains(text, "BUDGET  postgresql") || !strings.Contains(text, "PGTUNE") || !strings.Contains(text, "WORST CASE") {
		t.Errorf("text plan:\n%s", text)
	}
}
