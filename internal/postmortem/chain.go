package postmortem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/units"
)

// serviceNotes explains what became of each service and links the kills
// to the units they hit.
func serviceNotes(r *Report) {
	for i := range r.Services {
		s := &r.Services[i]
		s.Notes = fateNotes(*s)
		if s.TiedEvent != nil && *s.TiedEvent <= len(r.Events) {
			x := &r.Events[*s.TiedEvent-1]
			x.Services = append(x.Services, i+1)
		}
	}
}

func fateNotes(s Service) []string {
	var out []string
	switch {
	case s.Fate == FateStopped && s.Result == "oom-kill":
		out = append(out, "systemd stopped the whole service because the OOM killer killed one of its processes (OOMPolicy=stop, "+
			"the default): every session of the server ended with it")
	case s.Fate == FateStopped && s.KilledBy == "systemd-oomd":
		out = append(out, "systemd-oomd killed the unit's whole cgroup: every process of the service ended")
	case s.Fate == FateStopped:
		out = append(out, fmt.Sprintf("the unit stopped (result %q)", units.Or(s.Result, "not in the log")))
	case s.Fate == FateKeptRunning && s.KilledBy == "kernel OOM killer":
		out = append(out, "the service kept running: systemd did not stop it (OOMPolicy=continue), as far as the log goes")
	}
	switch {
	case s.Fate == FateRestarted && s.Down != nil:
		out = append(out, fmt.Sprintf("systemd restarted it (Restart=): started again %s after the first message", shortDur(*s.Down)))
	case s.Fate == FateRestarted:
		out = append(out, "systemd scheduled a restart (Restart=); the start itself is not in the log")
	case s.Fate == FateStopped:
		out = append(out, "nothing restarted it in the log: it stayed down until started by hand (Restart=on-abnormal restarts after a kill)")
	}
	if s.RestartCounter != nil && *s.RestartCounter > 3 {
		out = append(out, fmt.Sprintf("restart counter %d: it has been dying again and again", *s.RestartCounter))
	}
	return out
}

// chainAdvice is what the service manager's and the other killers' logs
// show should change.
func chainAdvice(r *Report) []Advice {
	var out []Advice
	add := func(ok bool, a Advice) {
		if ok {
			out = append(out, a)
		}
	}
	add(slices.ContainsFunc(r.Services, func(s Service) bool { return s.Result == "oom-kill" && s.Fate == FateStopped }), adviceOOMPolicy)
	add(slices.ContainsFunc(r.Killers, func(k Killer) bool { return k.Killer == "systemd-oomd" && k.Database }), adviceOomd)
	add(slices.ContainsFunc(r.Killers, func(k Killer) bool { return k.Killer == "earlyoom" && k.Database }), adviceEarlyoom)
	add(slices.ContainsFunc(r.Killers, func(k Killer) bool { return k.Action == "panic" }), advicePanic)
	add(slices.ContainsFunc(r.Killers, func(k Killer) bool {
		return k.Reason == "eviction-memory" || k.Reason == "container-memory-limit"
	}), adviceKubernetes)
	add(slices.ContainsFunc(r.MemoryErrors, func(e MemoryError) bool { return e.Engine == dblog.EngineMySQL }), adviceMySQLAlloc)
	add(slices.ContainsFunc(r.MemoryErrors, func(e MemoryError) bool { return strings.HasPrefix(e.Code, "ORA-") }), adviceOracle)
	add(slices.ContainsFunc(r.OutOfMemory, func(e OOMError) bool { return e.Kind == dblog.OOMIoUring }), adviceIoUring)
	return out
}

var (
	adviceOOMPolicy = Advice{ID: "postmortem.oom_policy_stop", Title: "systemd stopped the database because one process was OOM-killed",
		Why: "With OOMPolicy=stop (systemd's default unless DefaultOOMPolicy= says otherwise) a kill of any process of the unit stops the whole unit: for PostgreSQL one backend's death takes down the postmaster and every session, and nothing starts it again unless Restart= says so.",
		Fix: "OOMPolicy=continue in the unit's drop-in (PostgreSQL then restarts its own backends; `dbmem plan` renders it), Restart=on-abnormal, and bound memory so the kill does not happen: MemoryHigh/MemoryMax for the service, OOMScoreAdjust=-1000 for the postmaster."}
	adviceOomd = Advice{ID: "postmortem.oomd_killed_database", Title: "systemd-oomd killed a database's cgroup",
		Why: "systemd-oomd kills a whole cgroup when memory pressure or swap use over its limits lasts: for a database that is every process of the service at once, usually with no log line of the database's own.",
		Fix: "ManagedOOMPreference=avoid for the database unit (it is then chosen last), or move it out of a slice with ManagedOOMMemoryPressure=kill/ManagedOOMSwap=kill; `dbmem check` shows oomd's limits for the database's slice."}
	adviceEarlyoom = Advice{ID: "postmortem.earlyoom_killed_database", Title: "earlyoom killed a database process",
		Why: "earlyoom signals the process with the highest oom_score when available memory and free swap are both under its limits, before the kernel's OOM killer would act; a database is usually the biggest process.",
		Fix: "Add the database to earlyoom's --avoid list (e.g. --avoid '^(postgres|mysqld|mariadbd)$') or lower its limits; size the database so the host does not reach them."}
	advicePanic = Advice{ID: "postmortem.panic_on_oom", Title: "The kernel panicked on out of memory",
		Why: "With vm.panic_on_oom = 1 or 2 the kernel panics instead of killing a process: the whole machine goes down, every database with it; with no killable process (all at oom_score_adj -1000) it panics too.",
		Fix: "vm.panic_on_oom = 0 on a database host (a kill of one process is better than losing the machine), and do not give every process oom_score_adj -1000."}
	adviceKubernetes = Advice{ID: "postmortem.kubernetes_memory", Title: "Kubernetes killed or evicted a pod for memory",
		Why: "A container over its memory limit is OOM-killed by the kernel inside its cgroup (OOMKilled, exit code 137); a node low on memory makes kubelet evict pods that use more than they requested.",
		Fix: "Give the database container requests = limits for memory at its worst case (`dbmem plan --format kubernetes`) so it is Guaranteed and evicted last."}
	adviceMySQLAlloc = Advice{ID: "postmortem.mysql_alloc_failed", Title: "MySQL/MariaDB could not allocate its memory",
		Why: "InnoDB allocates its whole buffer pool at start: when the kernel refuses it (errno 12, ENOMEM: not enough RAM and swap, strict overcommit, a container's or ulimit's limit) the server does not start.",
		Fix: "Size innodb_buffer_pool_size for the RAM and the limits of the container or service (`dbmem check` shows mysql.worst_case), or raise the limit."}
	adviceOracle = Advice{ID: "postmortem.oracle_memory", Title: "Oracle ran out of memory",
		Why: "ORA-04030 is a process's private memory (PGA) refused by the OS, ORA-04031 the SGA's pool full, ORA-04036 the PGA limit hit, ORA-27102 the SGA not allocated, ORA-27300 with status 12 a fork without memory.",
		Fix: "Size SGA and PGA_AGGREGATE_TARGET/LIMIT for the RAM, check memlock, kernel.shmmax/shmall and huge pages (`dbmem check` for the SysV segments)."}
	adviceIoUring = Advice{ID: "postmortem.io_uring_memlock", Title: "PostgreSQL could not set up io_uring",
		Why: "With io_method = io_uring (PostgreSQL 18) every backend's ring is locked memory: Linux 6.14+ charges it to RLIMIT_MEMLOCK, systemd's default is 8 MiB, and kernel.io_uring_disabled may forbid io_uring; the server then fails with \"could not setup io_uring queue: Cannot allocate memory\" whatever RAM is free.",
		Fix: "LimitMEMLOCK= for the service at the rings' size (`dbmem plan` computes it), kernel.io_uring_disabled = 0, or io_method = worker."}
)
