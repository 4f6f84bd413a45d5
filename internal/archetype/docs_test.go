package archetype

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const docsPath = "../../docs/archetypes.md"

// TestArchetypeDocs keeps docs/archetypes.md equal to the archetypes'
// specs and expectations (-update rewrites it).
func TestArchetypeDocs(t *testing.T) {
	var b strings.Builder
	b.WriteString(docsHead)
	for _, name := range archetypes(t) {
		dir := filepath.Join(root, name)
		s, err := LoadSpec(dir)
		if err != nil {
			t.Fatal(err)
		}
		e, err := LoadExpect(dir)
		if err != nil {
			t.Fatal(err)
		}
		writeArchetypeDoc(&b, name, s, e)
	}
	got := b.String()
	if *update {
		if err := os.WriteFile(docsPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(docsPath)
	if err != nil || string(want) != got {
		t.Errorf("%s is out of date (go test ./internal/archetype -run TestArchetypeDocs -update)", docsPath)
	}
}

func writeArchetypeDoc(b *strings.Builder, name string, s Spec, e Expect) {
	fmt.Fprintf(b, "## %s\n\n%s.\n\n**Verdict.** %s\n\n", name, s.Title, strings.TrimSpace(e.Verdict))
	for _, f := range e.Check.Raise {
		fmt.Fprintf(b, "- raise `%s` (%s): %s\n", f.ID, f.Severity, f.Why)
	}
	for _, f := range e.Check.NotRaise {
		fmt.Fprintf(b, "- never `%s`: %s\n", f.ID, f.Why)
	}
	for _, x := range e.Plan.Settings {
		fmt.Fprintf(b, "- plan %s `%s`: %s (%s)\n", x.Target, x.Name, constraint(x), x.Why)
	}
	if e.Plan.CommitLimitMaxGiB > 0 {
		fmt.Fprintf(b, "- plan: CommitLimit never above %.1f GiB (the kernel's arithmetic)\n", e.Plan.CommitLimitMaxGiB)
	}
	if e.Plan.CommitLimitMinGiB > 0 {
		fmt.Fprintf(b, "- plan: CommitLimit never under %.1f GiB (committed now)\n", e.Plan.CommitLimitMinGiB)
	}
	if reason, ok := knownFailing[name]; ok {
		fmt.Fprintf(b, "\n**dbmem today:** differs. %s.\n\n", reason)
	} else {
		b.WriteString("\n**dbmem today:** reaches this verdict.\n\n")
	}
}

func constraint(x SettingExpect) string {
	var parts []string
	switch {
	case x.Absent:
		return "not set"
	case x.Value != "":
		parts = append(parts, "= "+x.Value)
	}
	if x.Not != "" {
		parts = append(parts, "never "+x.Not)
	}
	if x.Min != nil {
		parts = append(parts, fmt.Sprintf(">= %g", *x.Min))
	}
	if x.Max != nil {
		parts = append(parts, fmt.Sprintf("<= %g", *x.Max))
	}
	if x.Required && x.Value == "" {
		parts = append(parts, "set")
	}
	if len(parts) == 0 {
		return "any"
	}
	return strings.Join(parts, ", ")
}

const docsHead = `# Host archetypes and the verdicts an expert signs

Each archetype under testdata/archetypes is a host dbmem has never seen: a
procfs/sysfs/root tree built from what people posted publicly (sources and
what was completed: testdata/archetypes/INDEX.md) or recorded on this
machine. For each, the verdict below was written by a senior DBA/SRE from the
data, before looking at dbmem's output: the findings that must be raised
(with their severity), those that must not, and the plan's constraints.
internal/archetype's TestArchetypes runs dbmem's real readers, check and
plan on every tree and compares; an archetype dbmem does not satisfy yet is
listed with the missing rule (internal/archetype/known_failing_test.go) and
shown here as "dbmem today" (none today: all 29 reach their verdict). A
verdict revised in review says why in testdata/archetypes/INDEX.md; none was
bent to dbmem's output.

Rules the verdicts apply:

- A pool must leave room for the OS and the worst case; a pool that does not
  is critical when MemAvailable is low or the host swaps, and a plan never
  grows it. On small VMs the answer is the buffer pool or shared_buffers, not
  huge pages (MySQL's own innodb_dedicated_server sizing: 50% of RAM up to
  4 GiB, 75% above; its 128 MiB below 1 GiB is a default, not a bound).
- Pools of owners dbmem cannot see (an Oracle SGA) are kept and counted: the
  CommitLimit a plan promises is the kernel's, (RAM - pools) x ratio + swap.
- Margins are bytes rounded up to pages (a 0.52 GiB segment needs one 1 GiB
  page; MariaDB's 8-page minimum is 16 MiB, not 8 GiB).
- vm.overcommit_ratio is rounded down so the page-cache reserve holds, and
  never lowers CommitLimit under what is committed.
- Advice names the engines present: THP never/madvise for PostgreSQL, MySQL,
  Oracle, Redis; enabled for MongoDB 8+. Strict overcommit is not advised
  where Redis, a JVM, an Erlang VM run or kubelet owns the node, with the
  conflict said.
- Swap advice only where there is swap.
- A fallback from huge_pages=try names its cause (page size, hugetlb cgroup,
  memlock/group rights) and never says to grow a pool that is big enough.
- Inside a pod, the node's pool and sysctls are the node's business.

`
