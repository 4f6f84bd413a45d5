package archetype

import (
	"context"
	"flag"
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/snapshot"
)

var update = flag.Bool("update", false, "record the hashes of the archetype trees and rewrite docs/archetypes.md")

const root = "../../testdata/archetypes"

func archetypes(t *testing.T) []string {
	t.Helper()
	dirs, err := Dirs(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 25 {
		t.Fatalf("%d archetypes, want at least 25", len(dirs))
	}
	return dirs
}

// TestArchetypeTrees checks that every archetype generates the tree whose
// hash is recorded beside its spec (-update records the hashes).
func TestArchetypeTrees(t *testing.T) {
	for _, name := range archetypes(t) {
		dir := filepath.Join(root, name)
		tree, err := Generate(dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if *update {
			if err := WriteSum(dir, tree); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := CheckSum(dir, tree); err != nil {
			t.Error(err)
		}
	}
}

// TestTreeSumCatchesDrift: a changed byte, a file gone or a file added
// each fail the drift check.
func TestTreeSumCatchesDrift(t *testing.T) {
	dir := filepath.Join(root, "vm1g-mysql8-bp768m")
	tree, err := Generate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckSum(dir, tree); err != nil {
		t.Fatal(err)
	}
	for what, change := range map[string]func(Tree){
		"a changed byte": func(t Tree) { t["proc/meminfo"] = strings.Replace(t["proc/meminfo"], "1", "2", 1) },
		"a file gone":    func(t Tree) { delete(t, "proc/meminfo") },
		"a file added":   func(t Tree) { t["proc/sys/vm/extra"] = "0\n" },
		"a file moved":   func(t Tree) { t["proc/meminfo2"] = t["proc/meminfo"]; delete(t, "proc/meminfo") },
	} {
		c := Tree{}
		for p, v := range tree {
			c[p] = v
		}
		change(c)
		if err := CheckSum(dir, c); err == nil {
			t.Errorf("%s passes the drift check", what)
		}
	}
}

// generated writes the tree of the archetype name into a temporary
// directory, checked against its recorded hash.
func generated(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := Build(filepath.Join(root, name), dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

// judge runs dbmem's check and plan on an archetype's tree, with no live
// connection: settings come from the configuration files in the tree.
func judge(t *testing.T, dir string, o PlanOptions) ([]Finding, Plan) {
	t.Helper()
	fs := capture.TreeFS(dir)
	snap, err := snapshot.Take(context.Background(), snapshot.Options{FS: fs, Method: measure.Smaps})
	if err != nil {
		t.Fatalf("snapshot of %s: %v", dir, err)
	}
	procs, _, err := plan.HostProcesses(fs)
	if err != nil {
		t.Fatal(err)
	}
	findings := advise.Check(snap, advise.Options{Processes: procs})
	req := plan.Request{Snapshot: snap, NodesPerQuery: advise.DefaultNodesPerQuery}
	req.Options.Dynamic = o.Dynamic
	if o.PageSize == "1GiB" {
		req.Options.PageSizeBytes = 1 << 30
	}
	res, err := plan.Run(context.Background(), req)
	if err != nil {
		t.Fatalf("plan of %s: %v", dir, err)
	}
	f, p, err := Decode(findings, res)
	if err != nil {
		t.Fatal(err)
	}
	return f, p
}

// TestArchetypes compares check and plan with each archetype's reviewed
// expectation. Archetypes listed in knownFailing (known_failing_test.go)
// are expected to fail today, each for the reason given there: their
// mismatches are logged, and one that starts passing fails the test until
// it is removed from the list.
func TestArchetypes(t *testing.T) {
	var failing []string
	for _, name := range archetypes(t) {
		t.Run(name, func(t *testing.T) {
			e, err := LoadExpect(filepath.Join(root, name))
			if err != nil {
				t.Fatal(err)
			}
			fs, p := judge(t, generated(t, name), e.Plan.Options)
			miss := append(CompareCheck(fs, e.Check), ComparePlan(p, e.Plan)...)
			if os.Getenv("ARCHETYPE_DUMP") != "" {
				dump(t, fs, p)
			}
			reason, known := knownFailing[name]
			switch {
			case len(miss) > 0 && known:
				failing = append(failing, name)
				t.Logf("KNOWN FAILING (%s):\n  %s", reason, strings.Join(miss, "\n  "))
			case len(miss) > 0:
				t.Errorf("differs from the expert's verdict:\n  %s", strings.Join(miss, "\n  "))
			case known:
				t.Errorf("passes now: remove it from knownFailing in known_failing_test.go")
			}
		})
	}
	sort.Strings(failing)
	t.Logf("%d archetypes known failing: %s", len(failing), strings.Join(failing, ", "))
	for name := range knownFailing {
		if _, err := LoadSpec(filepath.Join(root, name)); err != nil {
			t.Errorf("knownFailing names %s, which is not an archetype: %v", name, err)
		}
	}
}

// dump logs what dbmem said (ARCHETYPE_DUMP=1), to write a known failure's reason.
func dump(t *testing.T, fs []Finding, p Plan) {
	for _, f := range fs {
		t.Logf("finding %s %s [%s] %s", f.Severity, f.ID, f.Subject, f.Title)
	}
	for _, s := range p.Settings {
		t.Logf("setting %s %s = %s", s.Target, s.Name, s.Value)
	}
	for _, n := range p.Notes {
		t.Logf("note %s", n)
	}
	if p.Overcommit != nil {
		t.Logf("commit limit %.2f GiB", float64(p.Overcommit.CommitLimitBytes)/(1<<30))
	}
}
