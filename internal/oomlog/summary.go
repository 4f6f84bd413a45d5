package oomlog

import (
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// applySummary reads the one-line summary (4.19+):
// "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,
// mems_allowed=0,oom_memcg=/a,task_memcg=/a/b,task=postgres,pid=12,uid=113".
func applySummary(e *Event, body string) bool {
	i := strings.Index(body, "oom-kill:")
	if i < 0 || !strings.Contains(body[i:], "constraint=") {
		return false
	}
	s := &Summary{}
	for _, kv := range splitSummary(body[i+len("oom-kill:"):]) {
		k, v, _ := strings.Cut(kv, "=")
		applySummaryField(e, s, k, strings.TrimSpace(v))
	}
	if s.Task != "" || s.PID != 0 {
		e.Summary = s
	}
	return true
}

func applySummaryField(e *Event, s *Summary, k, v string) {
	switch k {
	case "constraint":
		c := constraintOf(v)
		if c == ConstraintUnknown {
			e.ConstraintRaw = v
		}
		setConstraint(e, c, ConstraintFromSummary)
	case "cpuset":
		e.Cpuset = v
	case "mems_allowed":
		e.MemsAllowed = v
	case "oom_memcg":
		e.OOMMemcg = v
	case "task_memcg":
		e.TaskMemcg = v
	case "task":
		s.Task = v
	case "pid":
		s.PID, _ = strconv.Atoi(v)
	case "uid":
		s.UID = units.AtoiPtr(v)
	}
}

// summaryPID returns the pid an oom-kill line names, or 0.
func summaryPID(body string) int {
	i := strings.Index(body, "oom-kill:")
	if i < 0 {
		return 0
	}
	for _, kv := range splitSummary(body[i+len("oom-kill:"):]) {
		if k, v, _ := strings.Cut(kv, "="); k == "pid" {
			n, _ := strconv.Atoi(strings.TrimSpace(v))
			return n
		}
	}
	return 0
}

// splitSummary splits on the commas that start a new key=value field, so
// that mems_allowed=0-3,5 and cgroup paths with commas stay whole.
func splitSummary(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != ',' {
			continue
		}
		next := s[i+1:]
		eq := strings.IndexAny(next, "=,")
		if (eq > 0 && next[eq] == '=') || strings.HasPrefix(next, "global_oom") {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// constraintOf reads constraint=; an unknown value is ConstraintUnknown.
func constraintOf(v string) Constraint {
	switch v {
	case "CONSTRAINT_NONE":
		return ConstraintGlobal
	case "CONSTRAINT_MEMCG":
		return ConstraintMemcg
	case "CONSTRAINT_CPUSET":
		return ConstraintCpuset
	case "CONSTRAINT_MEMORY_POLICY":
		return ConstraintMempolicy
	}
	return ConstraintUnknown
}

// constraintRank orders sources: a printed constraint beats a cgroup line,
// which beats the kill line's wording, which beats the call trace.
var constraintRank = map[string]int{
	ConstraintFromSummary: 4, ConstraintFromCgroup: 3, ConstraintFromKillLine: 2, ConstraintFromCallTrace: 1,
}

// setConstraint records a constraint unless a better source already did.
func setConstraint(e *Event, c Constraint, from string) {
	if c == ConstraintUnknown || constraintRank[from] < constraintRank[e.ConstraintFrom] {
		return
	}
	e.Constraint, e.ConstraintFrom = c, from
	e.ConstraintInferred = from != ConstraintFromSummary
}
