package oomlog

import (
	"slices"
	"strings"
)

// memcgFrames are the functions on the stack of a memory cgroup OOM:
// mem_cgroup_out_of_memory (3.x+), mem_cgroup_oom_synchronize (the v1
// page-fault path) and mem_cgroup_oom.
var memcgFrames = []string{"mem_cgroup_out_of_memory", "mem_cgroup_oom_synchronize", "mem_cgroup_oom+", "mem_cgroup_oom "}

// allocatorFrames are the page allocator's paths into the OOM killer, which
// a memory cgroup OOM never takes.
var allocatorFrames = []string{"__alloc_pages_slowpath", "__alloc_pages_may_oom", "__alloc_pages+", "__alloc_pages_nodemask+"}

// applyTraceFrame infers the scope from a call trace line when no better
// source said it: a memory cgroup function on the stack means a cgroup OOM
// (a report cut before its "memory: usage" lines still shows it), the page
// allocator's slow path a global one. Frames marked "?" are guesses of the
// unwinder and are ignored. It reports whether the line was a frame.
func applyTraceFrame(e *Event, body string) bool {
	f := strings.TrimSpace(body)
	if i := strings.Index(f, "] "); strings.HasPrefix(f, "[<") && i > 0 {
		f = strings.TrimSpace(f[i+2:]) // "[<ffffffff8b362e41>] dump_stack+0x19/0x1b"
	}
	if strings.HasPrefix(f, "? ") || !strings.Contains(f, "+0x") {
		return false
	}
	switch {
	case containsAny(f, memcgFrames):
		setConstraint(e, ConstraintMemcg, ConstraintFromCallTrace)
	case containsAny(f, allocatorFrames) && e.Constraint == ConstraintUnknown:
		setConstraint(e, ConstraintGlobal, ConstraintFromCallTrace)
	}
	return true
}

// isOOMFrame reports a call trace line of the OOM killer itself: a report
// whose first lines are missing.
func isOOMFrame(body string) bool {
	f := strings.TrimSpace(body)
	return !strings.HasPrefix(f, "? ") && (strings.Contains(f, "oom_kill_process") || strings.Contains(f, "out_of_memory+") ||
		strings.Contains(f, "out_of_memory.") || strings.Contains(f, "out_of_memory from"))
}

func containsAny(s string, subs []string) bool {
	return slices.ContainsFunc(subs, func(x string) bool { return strings.Contains(s, x) })
}
