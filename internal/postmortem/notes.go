package postmortem

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/oomlog"
	"github.com/dbmem/dbmem/internal/units"
)

// notes explains an event in sentences, from the scope to the cost.
func notes(x Explained, e oomlog.Event) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if s := scopeNote(x.Scope); s != "" {
		out = append(out, s)
	}
	v := x.Victim
	if t := x.Trigger; t != nil && e.Victim != nil {
		if t.PID == v.PID || (t.PID == 0 && t.Name == v.Name) {
			add("The process that asked for memory is the one that was killed.")
		} else {
			add("The allocation came from %s (pid %d); the kernel killed another process, the one with the highest badness.", t.Name, t.PID)
		}
	}
	out = append(out, costNotes(v)...)
	if v.Role == "postmaster" {
		add("The postmaster itself was killed: the instance went down without a crash restart and stays down until its service manager starts it again.")
	} else if v.HasOOMScoreAdj && v.OOMScoreAdj < 0 {
		add("Its oom_score_adj was %d (partly protected), and it was still the largest candidate.", v.OOMScoreAdj)
	}
	if x.Incomplete {
		add("The report is incomplete (%s): what is shown is what the log kept.", x.IncompleteReason)
	}
	return out
}

func scopeNote(s Scope) string {
	switch s.Constraint {
	case "global":
		return "The whole machine was out of memory (RAM and swap): every process was a candidate."
	case "memcg":
		n := fmt.Sprintf("The memory cgroup %s hit its limit", orUnknown(s.Cgroup))
		if s.LimitBytes > 0 {
			n += fmt.Sprintf(" of %s (usage %s)", units.Bytes(s.LimitBytes), units.Bytes(s.UsageBytes))
		}
		return n + ": only its processes were candidates; the rest of the machine may have had memory to spare."
	case "cpuset":
		return "The memory nodes of a cpuset were exhausted: only processes limited to them were candidates."
	case "mempolicy":
		return "The nodes of an MPOL_BIND memory policy were exhausted: only processes bound to them were candidates."
	}
	return ""
}

// costNotes say what the kill gave back.
func costNotes(v Victim) []string {
	if v.PID == 0 || v.AlreadyExiting {
		return nil
	}
	if v.ShmemDominates {
		return []string{fmt.Sprintf("The kill freed almost nothing: %s of its %s RSS was shared memory that stays "+
			"(still mapped by the other processes, such as shared_buffers); only about %s (anonymous memory and page tables) came back.",
			units.Bytes(v.ShmemBytes), units.Bytes(v.RSSBytes), units.Bytes(v.FreedBytes))}
	}
	n := fmt.Sprintf("The kill gave back about %s (anonymous memory and page tables)", units.Bytes(v.FreedBytes))
	if v.HasShmem && v.ShmemBytes > 0 {
		n += fmt.Sprintf("; its %s of shared memory stayed", units.Bytes(v.ShmemBytes))
	}
	return []string{n + "."}
}

func orUnknown(s string) string {
	if s == "" {
		return "(not named)"
	}
	return s
}
