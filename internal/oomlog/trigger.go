package oomlog

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

var (
	// "%s invoked oom-killer: gfp_mask=%#x(%pGg), order=%d, oom_score_adj=%hd"
	// with "nodemask=..," (4.9-4.18), "oom_adj=%d, " (RHEL 6) or
	// "oomkilladj=%d" (2.6.2x).
	triggerRe = regexp.MustCompile(`(\S.*?) invoked oom-killer: gfp_mask=(\S+?),.*?\border=(-?\d+)(?:.*?\b(?:oom_score_adj|oomkilladj)=(-?\d+))?`)
	// The stack dump header that follows: "CPU: 1 PID: 4312 Comm: python3
	// Not tainted 6.8.0" (6.11+: "CPU: 1 UID: 0 PID: ..."), and on 2.6/3.x
	// "Pid: 5795, comm: SABnzbd.py Not tainted 2.6.24-24-server #1".
	cpuLineRe = regexp.MustCompile(`^CPU: \d+ (?:UID: (\d+) )?PID: (\d+) Comm: (.*?) (?:Not tainted|Tainted:|Kdump:)`)
	pidLineRe = regexp.MustCompile(`^Pid: (\d+), comm: (.*?) (?:Not tainted|Tainted:)`)
	// "5.15.0-72-generic #79-Ubuntu" after the taint flags.
	releaseRe = regexp.MustCompile(`(?:Not tainted|Tainted: [^#]*?) (\d+\.\d+[^\s#]*) #`)
	// "pgcenter cpuset=/ mems_allowed=0" (before 4.19).
	cpusetLineRe = regexp.MustCompile(`^(.+) cpuset=(\S+) mems_allowed=(\S+)$`)
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
			t.Name, t.PID = name, Int(n)
		}
	}
	if n, err := strconv.Atoi(m[3]); err == nil {
		t.Order = Int(n)
	}
	if n, err := strconv.Atoi(m[4]); err == nil && m[4] != "" {
		t.OOMScoreAdj = Int(n)
	}
	return t, true
}

// applyCPULine reads the stack dump header: the trigger's PID (and UID on
// 6.x) when the command is the trigger's, and the kernel release.
func applyCPULine(e *Event, body string) bool {
	var uid, pid, comm string
	if m := cpuLineRe.FindStringSubmatch(body); m != nil {
		uid, pid, comm = m[1], m[2], m[3]
	} else if m := pidLineRe.FindStringSubmatch(body); m != nil {
		pid, comm = m[1], m[2]
	} else {
		return false
	}
	if r := releaseRe.FindStringSubmatch(body); r != nil && e.KernelRelease == "" {
		e.KernelRelease = r[1]
	}
	t := e.Trigger
	if t == nil || t.PID != nil || strings.TrimSpace(comm) != strings.TrimSpace(t.Name) {
		return true
	}
	t.PID = units.AtoiPtr(pid)
	t.UID = units.AtoiPtr(uid)
	return true
}

// applyCpusetLine reads "x cpuset=/ mems_allowed=0" of kernels before 4.19.
func applyCpusetLine(e *Event, body string) bool {
	m := match(body, " cpuset=", cpusetLineRe)
	if m == nil {
		return false
	}
	if e.Cpuset == "" {
		e.Cpuset, e.MemsAllowed = m[2], m[3]
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
		e.Memcg.LimitUnlimited = unlimited(limit)
	} else {
		e.Memcg.Swap = &SwapUsage{Kind: m[1], UsageBytes: kib(usage), LimitBytes: kib(limit), LimitUnlimited: unlimited(limit)}
	}
	setConstraint(e, ConstraintMemcg, ConstraintFromCgroup)
	return true
}

// unlimited reports a limit of PAGE_COUNTER_MAX (9007199254740988kB on
// 64-bit with 4 KiB pages) or more: no limit set.
func unlimited(limitKB uint64) bool { return limitKB >= 9007199254740988 }

// applyTaskIn reads the cgroup v1 "Task in X killed as a result of limit of Y".
func applyTaskIn(e *Event, body string) bool {
	m := taskInRe.FindStringSubmatch(body)
	if m == nil {
		return false
	}
	e.TaskMemcg, e.OOMMemcg = m[1], m[2]
	setConstraint(e, ConstraintMemcg, ConstraintFromCgroup)
	return true
}

// kib converts kB (the kernel's KiB) to bytes.
func kib(n uint64) uint64 {
	if n > math.MaxUint64/1024 {
		return math.MaxUint64 // an "unlimited" v1 limit such as 18014398509481983kB
	}
	return n * 1024
}
