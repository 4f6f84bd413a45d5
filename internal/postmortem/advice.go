package postmortem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// relevantPrefixes are the advise finding IDs that bear on OOM kills.
var relevantPrefixes = []string{"hugepages.", "oom.", "overcommit.", "memory.worst_case", "pagetables.", "mysql.worst_case",
	"systemd.oom_policy_stop", "systemd.oomd_manages_database", "earlyoom.", "kernel.panic_on_oom", "kernel.oom_kill_allocating_task"}

// RelevantFindings keeps the findings of advise.Check that would have
// prevented an OOM kill or softened it: huge pages, oom_score_adj,
// overcommit, the worst case of work_mem, page tables, and the OOM guard
// (a unit's OOMPolicy=stop, oomd, earlyoom, panic_on_oom); about the host, or
// about one of the instances named (all instances when none is).
func RelevantFindings(fs []finding.Finding, instances map[string]bool) []finding.Finding {
	var out []finding.Finding
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

// logAdvice is what the logs themselves show should change, from the logs
// alone (nothing about the host dbmem runs on).
func logAdvice(events []Explained, crashes []Crash) []Advice {
	var out []Advice
	for _, rule := range adviceRules {
		var a Advice
		for i, x := range events {
			if b, ok := rule(x); ok {
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
	return append(out, crashAdvice(events, crashes)...)
}

var adviceRules = []func(Explained) (Advice, bool){
	adviseMachine, adviseShmemVictim, advisePostmaster, adviseBackendRestart, adviseCgroup,
}

// adviseMachine turns the machine's headline into advice.
func adviseMachine(x Explained) (Advice, bool) {
	if x.Headline == "" {
		return Advice{}, false
	}
	why, fix, _ := strings.Cut(x.Headline, " Fix: ")
	return Advice{ID: "postmortem.machine_" + strings.ReplaceAll(x.Machine.Dominant[0], " ", "_"),
		Title: "The machine's memory went to " + x.Machine.Dominant[0], Why: why, Fix: fix}, true
}

func adviseShmemVictim(x Explained) (Advice, bool) {
	if x.Victim == nil || !x.Victim.ShmemDominates {
		return Advice{}, false
	}
	return Advice{ID: "postmortem.shmem_victim", Title: "The kernel killed a process whose size was mostly shared memory",
		Why: "Without huge pages every page of shared memory a process touches counts in its RSS, so a checkpointer or a " +
			"long-lived backend looks huge to the OOM killer; killing it frees almost nothing, and for PostgreSQL it restarts the instance.",
		Fix: "Put shared memory in huge pages (PostgreSQL huge_pages = on, vm.nr_hugepages from `dbmem plan`): hugetlb pages are " +
			"not in RSS, so the badness becomes what a process really owns."}, true
}

func advisePostmaster(x Explained) (Advice, bool) {
	if x.Victim == nil || x.Victim.Role != "postmaster" {
		return Advice{}, false
	}
	adj := "Its oom_score_adj is not in the log."
	if x.Victim.OOMScoreAdj != nil {
		adj = fmt.Sprintf("Its oom_score_adj was %d.", *x.Victim.OOMScoreAdj)
	}
	return Advice{ID: "postmortem.postmaster_killed", Title: "The postmaster was killed",
		Why: adj + " Without the postmaster the instance is down until it is started again.",
		Fix: "Start the postmaster with oom_score_adj -1000 (systemd OOMScoreAdjust=-1000) and give the backends back a normal " +
			"score with PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj and PG_OOM_ADJUST_VALUE=0."}, true
}

func adviseBackendRestart(x Explained) (Advice, bool) {
	c := x.Crash
	if c == nil || c.Engine != "postgresql" || c.NoRestart || (x.Victim != nil && x.Victim.Role == "postmaster") {
		return Advice{}, false
	}
	return Advice{ID: "postmortem.backend_restart", Title: "One process's death restarted the whole instance",
		Why: "The postmaster cannot know what a SIGKILLed process left half-done in shared memory, so it ends every session and " +
			"runs crash recovery: every connection and transaction of the instance was lost, not only the process killed.",
		Fix: "Bound what queries can take: work_mem x sort/hash nodes x connections below RAM (memory.worst_case in `dbmem check`), " +
			"a pooler instead of many connections, or strict overcommit (vm.overcommit_memory = 2, `dbmem plan`) so that the " +
			"query fails with \"ERROR: out of memory\" and the instance stays up."}, true
}

func adviseCgroup(x Explained) (Advice, bool) {
	if x.Scope.Constraint != "memcg" || x.Victim == nil || !isDatabase(x.Victim.Name, x.Victim.Role) {
		return Advice{}, false
	}
	limit := "its limit (not in the log)"
	if x.Scope.LimitBytes != nil && !x.Scope.LimitUnlimited {
		limit = "its limit of " + units.Bytes(*x.Scope.LimitBytes)
	}
	return Advice{ID: "postmortem.cgroup_limit", Title: "A memory cgroup (container) limit was hit",
		Why: fmt.Sprintf("%s was killed because %s reached %s, whatever the rest of the machine had free.",
			x.Victim.Name, units.Or(x.Scope.Cgroup, "(not named in the log)"), limit),
		Fix: "Size the limit above the instance's worst case (memory.worst_case in `dbmem check` run inside it), or lower " +
			"work_mem / max_connections to fit the limit."}, true
}

// databaseNames are the process names of the engines dbmem knows.
var databaseNames = []string{"postgres", "postmaster", "mysqld", "mariadbd", "oracle", "redis-server"}

func isDatabase(name, role string) bool {
	return role != "" || slices.Contains(databaseNames, name) || strings.HasPrefix(name, "ora_")
}

// crashAdvice is what the database logs show: a bus error, a postmaster
// that died.
func crashAdvice(events []Explained, crashes []Crash) []Advice {
	all := append([]Crash(nil), crashes...)
	for _, x := range events {
		if x.Crash != nil {
			all = append(all, *x.Crash)
		}
	}
	var out []Advice
	if slices.ContainsFunc(all, func(c Crash) bool { return c.Signal != nil && *c.Signal == 7 && c.Engine == "postgresql" }) {
		out = append(out, Advice{ID: "postmortem.bus_error", Title: "A PostgreSQL process died of a bus error (signal 7)",
			Why: busErrorWhy, Fix: busErrorFix})
	}
	if slices.ContainsFunc(all, func(c Crash) bool { return c.PostmasterDied }) {
		out = append(out, Advice{ID: "postmortem.postmaster_died", Title: "The postmaster itself died",
			Why: "When the postmaster dies its backends end (\"unexpected postmaster exit\") and nothing restarts PostgreSQL: " +
				"the instance is down until something starts it again.",
			Fix: "If the kernel killed it: OOMScoreAdjust=-1000 for the postmaster (PG_OOM_ADJUST_FILE/VALUE for its children). " +
				"If a container runtime did (a stop timeout): give the server time to shut down. Run it under a service manager that restarts it."})
	}
	return out
}
