package oomlog

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

var (
	// "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d, oom_score_adj=%hd"
	// with "nodemask=..," (4.9-4.18), "oom_adj=%d, " (RHEL 6) or
	// "oomkilladj=%d" (2.6.2x).
	triggerRe = regexp.MustCompile(`(\S.*?) invoked oom-killer: gfp_mask=(\S+?),.*?\border=(-?\d+)(?:.*?\b(?:oom_score_adj|oomkilladj)=(-?\d+))?`)
	// "CPU: 1 PID: 4312 Comm: python3 Not tainted 6.8.0" (6.11+: "CPU: 1 UID: 0 PID: ...").
	cpuLineRe = regexp.MustCompile(`^CPU: \d+ (?:UID: \d+ )?PID: (\d+) Comm: `)
	// "memory: usage %llukB, limit %llukB, failcnt %lu"; also "swap: usage"
	// (v2) and "memory+swap: usage" (v1).
	usageRe = regexp.MustCompile(`^(memory|swap|memory\+swap): usage (\d+)kB, limit (\d+)kB, failcnt (\d+)`)
	// "Task in /a killed as a result of limit of /b" (cgroup v1, < 4.19).
	taskInRe = regexp.MustCompile(`^Task in (\S*) killed as a result of limit of (\S*)`)
)

// match runs re on body when body contains marker: a cheap test that
// spares the regexp most lines of the kernel log.
func match(body, marker string, re *regexp.Regexp) []string {
	if !strings.Contains(body, marker) {
		return nil
	}
	return re.FindStringSubmatch(body)
}

// parseTrigger reads the "invoked oom-killer" line.
func parseTrigger(body string) (*Trigger, bool) {
	m := match(body, " invoked oom-killer: ", triggerRe)
	if m == nil {
		return nil, false
	}
	t := &Trigger{Name: m[1], GFPMask: m[2]}
	// "oom02:4583 invoked" names the pid too.
	if name, pid, ok := strings.Cut(t.Name, ":"); ok {
		if n, err := strconv.Atoi(pid); err == nil {
			t.Name, t.PID = name, n
		}
	}
	t.Order, _ = strconv.Atoi(m[3])
	if m[4] != "" {
		t.OOMScoreAdj, _ = strconv.Atoi(m[4])
		t.HasOOMScoreAdj = true
	}
	return t, true
}

// applyCPULine takes the trigger's PID from the stack dump header.
func applyCPULine(e *Event, body string) bool {
	m := cpuLineRe.FindStringSubmatch(body)
	if m == nil {
		return false
	}
	if e.Trigger != nil && e.Trigger.PID == 0 {
		e.Trigger.PID, _ = strconv.Atoi(m[1])
	}
	return true
}

// applyUsage reads a cgroup's "memory: usage" or "swap: usage" line.
func applyUsage(e *Event, body string) bool {
	m := usageRe.FindStringSubmatch(body)
	if m == nil {
		return false
	}
	usage, _ := strconv.ParseUint(m[2], 10, 64)
	limit, _ := strconv.ParseUint(m[3], 10, 64)
	failcnt, _ := strconv.ParseUint(m[4], 10, 64)
	if e.Memcg == nil {
		e.Memcg = &MemcgUsage{}
	}
	if m[1] == "memory" {
		e.Memcg.UsageBytes, e.Memcg.LimitBytes, e.Memcg.Failcnt = kib(usage), kib(limit), failcnt
	} else {
		e.Memcg.SwapUsageBytes, e.Memcg.SwapLimitBytes, e.Memcg.HasSwap = kib(usage), kib(limit), true
	}
	setConstraint(e, ConstraintMemcg, true)
	return true
}

// applyTaskIn reads the cgroup v1 "Task in X killed as a result of limit of Y".
func applyTaskIn(e *Event, body string) bool {
	m := taskInRe.FindStringSubmatch(body)
	if m == nil {
		return false
	}
	e.TaskMemcg, e.OOMMemcg = m[1], m[2]
	setConstraint(e, ConstraintMemcg, true)
	return true
}

// applySummary reads the one-line summary (4.19+):
// "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,
// mems_allowed=0,oom_memcg=/a,task_memcg=/a/b,task=postgres,pid=12,uid=113".
func applySummary(e *Event, body string) bool {
	i := strings.Index(body, "oom-kill:")
	if i < 0 || !strings.Contains(body[i:], "constraint=") {
		return false
	}
	for _, kv := range splitSummary(body[i+len("oom-kill:"):]) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "constraint":
			setConstraint(e, constraintOf(v), false)
		case "cpuset":
			e.Cpuset = v
		case "mems_allowed":
			e.MemsAllowed = v
		case "oom_memcg":
			e.OOMMemcg = v
		case "task_memcg":
			e.TaskMemcg = v
		}
	}
	return true
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
	return Constraint(strings.ToLower(strings.TrimPrefix(v, "CONSTRAINT_")))
}

// setConstraint records a constraint; a printed one wins over an inferred one.
func setConstraint(e *Event, c Constraint, inferred bool) {
	if c == ConstraintUnknown || (inferred && e.Constraint != ConstraintUnknown && !e.ConstraintInferred) {
		return
	}
	e.Constraint, e.ConstraintInferred = c, inferred
}

// kib converts kB (the kernel's KiB) to bytes.
func kib(n uint64) uint64 {
	if n > math.MaxUint64/1024 {
		return math.MaxUint64 // an "unlimited" v1 limit such as 18014398509481983kB
	}
	return n * 1024
}
