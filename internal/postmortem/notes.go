package postmortem

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/oomlog"
	"github.com/dbmem/dbmem/internal/units"
)

// notes explains an event in sentences, from the scope to the cost. Each
// sentence rests on figures the log printed; what it did not print is
// said to be missing, never taken as zero.
func notes(x Explained, e oomlog.Event) []string {
	var out []string
	add := func(s string) {
		if s != "" {
			out = append(out, s)
		}
	}
	add(scopeNote(x.Scope))
	add(triggerNote(x.Trigger, x.Victim))
	out = append(out, costNotes(x.Victim)...)
	add(victimRoleNote(x.Victim))
	if x.Victim == nil && e.Selected != nil {
		add(fmt.Sprintf("The kernel chose %s (pid %d) to kill; the line saying it was killed is not in the log.", e.Selected.Name, e.Selected.PID))
	}
	switch {
	case x.Incomplete:
		add(fmt.Sprintf("The report is incomplete (%s): what is shown is what the log kept.", x.IncompleteReason))
	case e.StartMissing != "":
		add(fmt.Sprintf("The beginning of the report is not in the log (%s).", e.StartMissing))
	}
	return out
}

func scopeNote(s Scope) string {
	from := ""
	if s.Inferred && s.From != "" {
		from = " (inferred from " + s.From + ")"
	}
	switch s.Constraint {
	case "global":
		return "The whole machine was out of memory (RAM and swap): every process was a candidate" + from + "."
	case "memcg":
		n := fmt.Sprintf("The memory cgroup %s hit its limit", units.Or(s.Cgroup, "(not named in the log)"))
		switch {
		case s.LimitBytes != nil && !s.LimitUnlimited:
			n += fmt.Sprintf(" of %s (usage %s)", units.Bytes(*s.LimitBytes), units.Bytes(units.Deref(s.UsageBytes)))
		default:
			n += " (the limit is not in the log)"
		}
		return n + from + ": only its processes were candidates; the rest of the machine may have had memory to spare."
	case "cpuset":
		return "The memory nodes of a cpuset were exhausted: only processes limited to them were candidates" + from + "."
	case "mempolicy":
		return "The nodes of an MPOL_BIND memory policy were exhausted: only processes bound to them were candidates" + from + "."
	}
	return "What ran out (the whole machine or a memory cgroup) is not in the log."
}

// triggerNote says whether the process that asked for memory was the one
// killed: only when both PIDs are printed. A trigger PID is a thread id.
func triggerNote(t *Trigger, v *Victim) string {
	switch {
	case t == nil || v == nil:
		return ""
	case t.PID == nil:
		return fmt.Sprintf("The allocation came from %s; its pid is not in the log, so whether it was the process killed cannot be told.", t.Name)
	case *t.PID == v.PID:
		return "The process that asked for memory is the one that was killed."
	case t.Name == v.Name:
		return fmt.Sprintf("The allocation came from %s pid %d and the kernel killed %s pid %d: the trigger's pid is a thread id, "+
			"so this may be a thread of the same program, or another process of the same name.", t.Name, *t.PID, v.Name, v.PID)
	}
	return fmt.Sprintf("The allocation came from %s (pid %d); the kernel killed another process, the one with the highest badness.", t.Name, *t.PID)
}

// costNotes say what the kill gave back, from the figures printed.
func costNotes(v *Victim) []string {
	if v == nil || v.AlreadyExiting {
		return nil
	}
	switch {
	case v.FreedBytes == nil && v.NamedBy != "the kill line":
		return []string{"What the kill gave back is not in the log (no kill line with its memory figures)."}
	case v.FreedBytes == nil:
		return []string{"What the kill gave back is not in the log (this kill line prints no memory figures)."}
	}
	if v.ShmemDominates {
		return []string{fmt.Sprintf("The kill freed almost nothing: %s of its %s RSS was shared memory that stays "+
			"(still mapped by the other processes, such as shared_buffers); only about %s (%s) came back.",
			units.Bytes(*v.ShmemBytes), units.Bytes(*v.RSSBytes), units.Bytes(*v.FreedBytes), freedWhat(v))}
	}
	n := fmt.Sprintf("The kill gave back about %s (%s)", units.Bytes(*v.FreedBytes), freedWhat(v))
	switch {
	case v.ShmemBytes == nil:
		n += "; how much of its RSS was shared memory this kernel does not print (it is in file-rss)"
	case *v.ShmemBytes > 0:
		n += fmt.Sprintf("; its %s of shared memory stayed", units.Bytes(*v.ShmemBytes))
	}
	return []string{n + "."}
}

func freedWhat(v *Victim) string {
	if v.FreedIncludesPgtables {
		return "anonymous memory and page tables"
	}
	return "anonymous memory; its page tables are not in the log"
}

func victimRoleNote(v *Victim) string {
	switch {
	case v == nil:
		return ""
	case v.Role == "postmaster":
		return "The postmaster itself was killed: the instance went down without a crash restart and stays down until its service manager starts it again."
	case v.OOMScoreAdj != nil && *v.OOMScoreAdj < 0:
		return fmt.Sprintf("Its oom_score_adj was %d (partly protected), and it was still the largest candidate.", *v.OOMScoreAdj)
	case v.SelectedPID != nil:
		return fmt.Sprintf("The kernel chose pid %d and killed its child %d instead (\"sacrifice child\").", *v.SelectedPID, v.PID)
	}
	return ""
}

// crashNotes explain a crash restart beyond its steps.
func crashNotes(c Crash) []string {
	var out []string
	if c.Signal != nil && *c.Signal == 7 && c.Engine == "postgresql" {
		out = append(out, "Signal 7 (SIGBUS): in a container this is almost always huge pages the container may not use (see \"bus error\" below).")
	}
	if c.PostmasterDied && c.StopRequestedAt != nil && c.Time != nil {
		out = append(out, fmt.Sprintf("A shutdown was requested %s before the postmaster died: a stop timeout (docker stop waits 10 s by default) "+
			"kills a server that is slow to stop with SIGKILL.", shortDur(c.Time.Sub(*c.StopRequestedAt))))
	}
	if c.Signal != nil && *c.Signal == 9 && c.MatchedBy == "" {
		out = append(out, "SIGKILL is what the OOM killer sends (look in the kernel log of that host at that time); "+
			"it is also what kill -9 and a container runtime's stop timeout send.")
	}
	if c.ExitCode != nil && c.Engine == "postgresql" && !c.PostmasterDied {
		out = append(out, fmt.Sprintf("It exited with code %d (not killed), and the postmaster restarted the instance anyway: "+
			"it cannot know what the process left half-done in shared memory.", *c.ExitCode))
	}
	return append(out, restartNote(c)...)
}

// busErrorWhy and busErrorFix are the huge-pages-in-a-container failure.
const (
	busErrorWhy = "Signal 7 (SIGBUS) in PostgreSQL is almost always huge pages in a container: the server mapped its shared " +
		"memory in huge pages (huge_pages = try finds a pool on the host), but the container's hugetlb cgroup limit does not " +
		"cover them. Without a reservation limit (hugetlb.<size>.rsvd.*, kernel 5.7+, set by recent runc) the mmap succeeds and " +
		"the fault only comes when a page is first touched, killing whichever process touched it; the postmaster then restarts " +
		"the instance, and the next touch kills again."
	busErrorFix = "Grant the pod the huge pages it maps (resources.limits hugepages-2Mi of at least SHOW shared_memory_size, " +
		"with huge_pages = on), or set huge_pages = off (initdb too: it reads the sample config), or run a kernel and runtime " +
		"that set the rsvd limit so that the mmap fails and huge_pages = try falls back to 4 KiB pages."
)

func restartNote(c Crash) []string {
	var out []string
	switch {
	case c.PostmasterDied && c.ReadyStep():
		out = append(out, "The postmaster itself died: nothing restarts PostgreSQL then; it came back only when something outside "+
			"(the service manager, an operator, the container runtime) started it again.")
	case c.PostmasterDied:
		out = append(out, "The postmaster itself died: nothing restarts PostgreSQL then, and the log does not show it started again.")
	case c.StartupRecovery:
		out = append(out, "The server started after an unclean stop: the previous run ended (a crash, kill -9, a lost host) "+
			"before this log begins; it recovered at startup.")
	case c.StartMissing:
		out = append(out, "The log starts after the crash began: the line naming what died is not in it.")
	}
	if c.Engine == "mysql" && hasStep(c, stepNames["restart"]) {
		out = append(out, "mysqld_safe saw the server gone and started it again.")
	}
	return out
}

func hasStep(c Crash, what string) bool {
	return slices.ContainsFunc(c.Steps, func(s Step) bool { return strings.HasPrefix(s.What, what) })
}
