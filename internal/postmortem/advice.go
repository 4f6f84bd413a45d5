package postmortem

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// relevantPrefixes are the advise finding IDs that bear on OOM kills.
var relevantPrefixes = []string{"hugepages.", "oom.", "overcommit.", "memory.worst_case", "pagetables.", "mysql.worst_case"}

// RelevantFindings keeps the findings of advise.Check that would have
// prevented an OOM kill or softened it: huge pages, oom_score_adj,
// overcommit, the worst case of work_mem, page tables; about the host, or
// about one of the instances named (all instances when none is).
func RelevantFindings(fs []advise.Finding, instances map[string]bool) []advise.Finding {
	var out []advise.Finding
	for _, f := range fs {
		if len(instances) > 0 && f.Subject != "host" && !instances[f.Subject] {
			continue
		}
		for _, p := range relevantPrefixes {
			if strings.HasPrefix(f.ID, p) {
				out = append(out, f)
				break
			}
		}
	}
	return out
}

// instancesOf names the instances the events involve.
func instancesOf(events []Explained) map[string]bool {
	out := map[string]bool{}
	add := func(s string) {
		if s != "" {
			out[s] = true
		}
	}
	for _, x := range events {
		add(x.Victim.Instance)
		if x.Crash != nil {
			add(x.Crash.Instance)
		}
		for _, t := range x.Tasks {
			add(t.Instance)
		}
	}
	return out
}

// eventAdvice is what the events themselves show should change.
func eventAdvice(events []Explained, s *snapshot.Snapshot) []Advice {
	var out []Advice
	for _, rule := range adviceRules {
		var a Advice
		for i, x := range events {
			if b, ok := rule(x, s); ok {
				if a.ID == "" {
					a = b
				}
				a.Events = append(a.Events, i+1)
			}
		}
		if a.ID != "" {
			out = append(out, a)
		}
	}
	return out
}

var adviceRules = []func(Explained, *snapshot.Snapshot) (Advice, bool){
	adviseShmemVictim, advisePostmaster, adviseBackendRestart, adviseCgroup,
}

func adviseShmemVictim(x Explained, s *snapshot.Snapshot) (Advice, bool) {
	if !x.Victim.ShmemDominates {
		return Advice{}, false
	}
	return Advice{ID: "postmortem.shmem_victim", Title: "The kernel killed a process whose size was mostly shared memory",
		Why: "Without huge pages every page of shared memory a process touches counts in its RSS, so a checkpointer or a " +
			"long-lived backend looks huge to the OOM killer; killing it frees almost nothing, and for PostgreSQL it restarts the instance.",
		Fix: "Put shared memory in huge pages (PostgreSQL huge_pages = on, vm.nr_hugepages from `dbmem plan`): hugetlb pages are " +
			"not in RSS, so the badness becomes what a process really owns." + hugeNow(s)}, true
}

// hugeNow says whether the instances of the snapshot already use huge pages.
func hugeNow(s *snapshot.Snapshot) string {
	if s == nil || len(s.Postgres) == 0 {
		return ""
	}
	for _, in := range s.Postgres {
		if in.Shared == nil || !in.Shared.Hugetlb {
			return fmt.Sprintf(" Now: %s maps its shared memory in 4 KiB pages.", advise.PostgresSubject(in))
		}
	}
	return " Now: every running instance already uses huge pages."
}

func advisePostmaster(x Explained, _ *snapshot.Snapshot) (Advice, bool) {
	if x.Victim.Role != "postmaster" {
		return Advice{}, false
	}
	return Advice{ID: "postmortem.postmaster_killed", Title: "The postmaster was killed",
		Why: fmt.Sprintf("Its oom_score_adj was %d. Without the postmaster the instance is down until it is started again.", x.Victim.OOMScoreAdj),
		Fix: "Start the postmaster with oom_score_adj -1000 (systemd OOMScoreAdjust=-1000) and give the backends back a normal " +
			"score with PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj and PG_OOM_ADJUST_VALUE=0."}, true
}

func adviseBackendRestart(x Explained, _ *snapshot.Snapshot) (Advice, bool) {
	c := x.Crash
	if c == nil || c.Engine != "postgresql" || c.NoRestart || x.Victim.Role == "postmaster" {
		return Advice{}, false
	}
	return Advice{ID: "postmortem.backend_restart", Title: "One process's death restarted the whole instance",
		Why: "The postmaster cannot know what a SIGKILLed process left half-done in shared memory, so it ends every session and " +
			"runs crash recovery: every connection and transaction of the instance was lost, not only the process killed.",
		Fix: "Bound what queries can take: work_mem x sort/hash nodes x connections below RAM (memory.worst_case in `dbmem check`), " +
			"a pooler instead of many connections, or strict overcommit (vm.overcommit_memory = 2, `dbmem plan`) so that the " +
			"query fails with \"ERROR: out of memory\" and the instance stays up."}, true
}

func adviseCgroup(x Explained, s *snapshot.Snapshot) (Advice, bool) {
	if x.Scope.Constraint != "memcg" || x.Victim.Role == "" {
		return Advice{}, false
	}
	a := Advice{ID: "postmortem.cgroup_limit", Title: "A memory cgroup (container) limit was hit",
		Why: fmt.Sprintf("%s was killed because %s reached its limit of %s, whatever the rest of the machine had free.",
			x.Victim.Name, orUnknown(x.Scope.Cgroup), units.Bytes(x.Scope.LimitBytes)),
		Fix: "Size the limit above the instance's worst case (memory.worst_case in `dbmem check` run inside it), or lower " +
			"work_mem / max_connections to fit the limit."}
	if in := instanceIn(s, x.Scope.Cgroup); in != nil {
		wc := advise.PostgresWorkload(in, advise.DefaultNodesPerQuery).WorstCase()
		a.Why += fmt.Sprintf(" %s runs in that cgroup now; its worst case is %s.", advise.PostgresSubject(in), units.Bytes(wc.TotalBytes))
	}
	return a, true
}

// instanceIn returns the snapshot's instance whose cgroup is path.
func instanceIn(s *snapshot.Snapshot, path string) *postgres.Instance {
	if s == nil || path == "" {
		return nil
	}
	for _, in := range s.Postgres {
		if in.Cgroup != nil && (in.Cgroup.Path == path || in.Cgroup.LimitPath == path) {
			return in
		}
	}
	return nil
}
