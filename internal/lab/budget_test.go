package lab

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
)

// TestQuickBudget runs `dbmem lab budget --quick` for real: a throwaway
// cluster in a 2 GiB memory cgroup, an OLTP role's pgbench clients and a
// reporting role's sorts and hash joins, under uniform-small (measuring
// dbmem's budget through plan's code path), dbmem's budget and PGTune's
// settings. It asserts the experiment's checks from this one run (no OOM
// kill under dbmem's budget, its peak within it, fewer temp bytes than
// uniform-small, the whole workload ran), the JSON's shape, and that the
// host is as before.
// Its duration is logged, not asserted (under 5 minutes on 2 cores).
func TestQuickBudget(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab budget needs root (memory cgroup)")
	}
	kerneltest.Lock(t)
	base, journal := labDirs(t)
	start := time.Now()
	res, err := RunBudget(context.Background(), BudgetOptions{Common: Common{Quick: true, BaseDir: base, JournalPath: journal, Progress: NewProgress(testLog{t}, false)}})
	t.Logf("lab budget --quick took %s (budget: 5 minutes on 2 cores)", time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("lab budget --quick: %v", err)
	}
	var text strings.Builder
	BudgetText(&text, res)
	t.Log("\n" + text.String())
	checkBudgetRestored(t, res, base, journal)
	if len(res.Checks) != 4 {
		t.Fatalf("checks %+v, want 4", res.Checks)
	}
	for _, c := range res.Checks {
		if !c.Pass {
			t.Errorf("check failed: %s: %s", c.Name, c.Detail)
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	checkBudgetJSON(t, b)
	if dir := os.Getenv("DBMEM_LAB_BUDGET_RECORD"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, "budget-quick.json"), b, 0o644); err != nil {
			t.Error(err)
		}
	}
}

func checkBudgetRestored(t *testing.T, r *BudgetResult, base, journal string) {
	t.Helper()
	if len(r.Restored) != 2 {
		t.Errorf("restored %+v: want the cluster and the memory cgroup", r.Restored)
	}
	for _, x := range r.Restored {
		if !x.OK || x.After != x.Before {
			t.Errorf("not restored: %+v", x)
		}
	}
	if r.Cgroup == nil {
		t.Fatal("no memory cgroup in the result")
	}
	if _, err := os.Stat(r.Cgroup.Dir); !os.IsNotExist(err) {
		t.Errorf("memory cgroup %s left: %v", r.Cgroup.Dir, err)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("cluster directory left in %s: %v", base, ents)
	}
	if n := len(postmastersUnder(t, base)); n != 0 {
		t.Errorf("%d postmasters left", n)
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal %s left: %v", journal, err)
	}
}

// checkBudgetJSON: configs[] in order, each with the fields the issue
// names; dbmem's with its budget; every figure measured, not absent.
func checkBudgetJSON(t *testing.T, b []byte) {
	t.Helper()
	var doc struct {
		Schema  string                       `json:"schema"`
		Configs []map[string]json.RawMessage `json:"configs"`
		Checks  []map[string]any             `json:"checks"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	want := []string{ConfigSmall, ConfigDBMem, ConfigPGTune}
	if doc.Schema != BudgetSchema || len(doc.Configs) != len(want) {
		t.Fatalf("schema %q, %d configs: want %s and %v", doc.Schema, len(doc.Configs), BudgetSchema, want)
	}
	for i, c := range doc.Configs {
		var name string
		json.Unmarshal(c["name"], &name)
		if name != want[i] {
			t.Errorf("configs[%d].name %q, want %q", i, name, want[i])
		}
		for _, k := range []string{"settings", "peak_private_bytes", "temp_bytes", "oom_kills", "out_of_memory_errors", "queries", "oltp"} {
			if v, ok := c[k]; !ok || string(v) == "null" {
				t.Errorf("configs[%d] (%s).%s = %s", i, name, k, v)
			}
		}
		if v := string(c["budget_bytes"]); (name == ConfigDBMem) != (v != "null") {
			t.Errorf("%s: budget_bytes %s", name, v)
		}
		var qs []QueryStats
		json.Unmarshal(c["queries"], &qs)
		done := 0
		for _, q := range qs {
			done += q.Completed
		}
		if len(qs) != 3 || done == 0 {
			t.Errorf("%s: queries %+v", name, qs)
		}
	}
	if len(doc.Checks) != 4 {
		t.Errorf("checks %v", doc.Checks)
	}
}
