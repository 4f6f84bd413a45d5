package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
)

// softwareEngines are the databases among the co-hosted software whose
// advice about host-wide settings (THP) counts: Redis, MongoDB (with its
// version when read), Oracle.
func softwareEngines(sw []cohost.Software) []Engine {
	var out []Engine
	seen := map[string]bool{}
	for _, s := range sw {
		var e Engine
		switch s.Kind {
		case cohost.Redis:
			e = Engine{Name: finding.EngineRedis}
		case cohost.MongoDB:
			e = Engine{Name: finding.EngineMongoDB, Major: s.Major, Minor: s.Minor}
		case cohost.Oracle:
			e = Engine{Name: finding.EngineOracle}
		default:
			continue
		}
		if k := e.String(); !seen[k] {
			seen[k] = true
			out = append(out, e)
		}
	}
	return out
}

// Conflict is software that strict overcommit would break, and why.
type Conflict struct {
	Software cohost.Software `json:"software"`
	Why      string          `json:"why"`
}

// OvercommitConflicts names the software that needs overcommit: Redis's
// background save forks a copy of its dataset; JVMs and Erlang VMs reserve
// large virtual ranges; kubelet owns vm.overcommit_memory=1 on a
// Kubernetes node.
func OvercommitConflicts(sw []cohost.Software) []Conflict {
	var out []Conflict
	for _, s := range sw {
		var why string
		switch s.Kind {
		case cohost.Redis:
			why = "needs vm.overcommit_memory=1: its background save (BGSAVE, AOF rewrite) forks the whole dataset, and strict " +
				"accounting refuses the fork (\"Can't save in background: fork: Cannot allocate memory\")"
		case cohost.JVM:
			why = "reserves its heap (-Xmx), metaspace, code cache and every thread's stack up front: strict accounting counts " +
				"all of it and refuses the JVM or its threads"
		case cohost.Erlang:
			why = "reserves large virtual ranges (its allocators' carriers, a 1 GiB literal area): strict accounting refuses " +
				"the VM or its schedulers"
		case cohost.Kubelet:
			why = "runs this Kubernetes node with vm.overcommit_memory=1 and sets it again at start; pods are bounded by " +
				"their memory limits instead"
		default:
			continue
		}
		out = append(out, Conflict{Software: s, Why: why})
	}
	return out
}

// conflictNames lists the conflicting software for a title: "redis-server
// (pid 1020) and beam.smp (rabbitmq) (pid 900)".
func conflictNames(cs []Conflict) string {
	var names []string
	for _, c := range cs {
		names = append(names, c.Software.String())
	}
	return joinAnd(names)
}

// joinAnd joins "a", "a and b", "a, b and c".
func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	out := s[0]
	for _, x := range s[1 : len(s)-1] {
		out += ", " + x
	}
	return out + " and " + s[len(s)-1]
}

// overcommitAlternative is the safe alternative to strict overcommit on a
// host where software needs overcommit.
func overcommitAlternative(cs []Conflict) string {
	node := false
	for _, c := range cs {
		node = node || c.Software.Kind == cohost.Kubelet
	}
	if node {
		return "Leave vm.overcommit_memory to kubelet; bound each database pod with resources.limits.memory at its worst case " +
			"(so a runaway query is killed inside its own cgroup) and keep work_mem x max_connections within it (a pooler)."
	}
	return "Keep vm.overcommit_memory as the software needs it and bound the databases instead: OOMScoreAdjust=-1000 for the " +
		"postmaster with PG_OOM_ADJUST_VALUE=0 for its children, a memory limit per service (systemd MemoryMax=/MemoryHigh=: a " +
		"runaway query is then killed inside its own cgroup, not the host's), and work_mem x max_connections within RAM (lower " +
		"work_mem, a pooler such as PgBouncer)."
}

// softwareSource says where software was found: its processes' names and
// arguments, and how many processes.
func softwareSource(s cohost.Software) string {
	src := "/proc/PID/stat and cmdline"
	if len(s.PIDs) > 1 {
		src += fmt.Sprintf(", %d processes", len(s.PIDs))
	}
	return src
}

// strictAdvisable reports whether strict overcommit may be advised on this
// host: not in a container (the node's setting), not beside software that
// needs overcommit, and only on a host that runs nothing but databases.
func (h host) strictAdvisable() bool {
	return !h.Env.InContainer && len(OvercommitConflicts(h.Software)) == 0 && h.Dedicated
}

// boundMemory is how a fix bounds the databases' memory on this host:
// strict overcommit where it may be advised, else a memory limit per
// service (what overcommit.mode then advises too).
func (h host) boundMemory() string {
	if h.strictAdvisable() {
		return "bound it with strict overcommit so the excess query fails alone (`dbmem plan`)"
	}
	return "bound the service with a memory limit (systemd MemoryMax=/MemoryHigh=; in a pod, its memory limit) so a runaway " +
		"query is killed inside its own cgroup: strict overcommit is not advised on this host (see overcommit.mode)"
}
