package lab

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/units"
)

// postmortemOf runs dbmem's post-mortem on one run's kernel log and server
// log, as `dbmem postmortem --kernel-log ... --db-log ...` would.
func postmortemOf(kernel, server, serverSource, instance, zone string, boot time.Time) (*postmortem.Report, string) {
	logs := []postmortem.Log{
		{Kind: postmortem.KindKernel, Source: DmesgSource, State: postmortem.StateRead, Text: []byte(kernel),
			SizeBytes: int64(len(kernel)), ReadBytes: int64(len(kernel)), Zone: zone, BootTime: boot},
		{Kind: postmortem.KindPostgres, Source: serverSource, Instance: instance, State: postmortem.StateRead, Text: []byte(server),
			SizeBytes: int64(len(server)), ReadBytes: int64(len(server)), Zone: zone},
	}
	rep := postmortem.Analyze(postmortem.Input{Logs: logs, Zone: zone, BootTime: boot, Last: 0})
	var b bytes.Buffer
	postmortem.Text(&b, rep)
	return rep, b.String()
}

// judgeKill says whether the post-mortem explains the kill the lab made:
// a kill of the runaway backend, in the lab's memory cgroup, paired by PID
// with the server's crash restart, which reached "ready". Kills of other
// programs in the same kernel log (other cgroups on a shared host) are
// counted, not judged.
func judgeKill(rep *postmortem.Report, pid int, cgroupPath string) Verdict {
	var v Verdict
	e, others := eventOf(rep, pid)
	if e == nil {
		v.Missing = append(v.Missing, fmt.Sprintf("no OOM kill of the runaway backend %d among the %d found", pid, others))
		v.Summary = "does not explain the kill: " + strings.Join(v.Missing, "; ")
		return v
	}
	check(&v, e.Scope.Constraint == "memcg" && e.Scope.Cgroup == cgroupPath,
		fmt.Sprintf("the limit hit is %q %q, not the lab's memory cgroup %s", e.Scope.Constraint, e.Scope.Cgroup, cgroupPath))
	c := e.Crash
	check(&v, c != nil, "no crash restart of the server is paired with the kill")
	if c != nil {
		check(&v, c.KilledPID != nil && *c.KilledPID == pid && c.Certain, fmt.Sprintf("the crash restart names PID %s, matched by %q", units.OptInt(c.KilledPID, units.Unknown), c.MatchedBy))
		check(&v, !c.Incomplete && !c.NoRestart && c.Downtime != nil && *c.Downtime > 0, "the restart does not reach \"ready to accept connections\"")
	}
	v.Explains = len(v.Missing) == 0
	v.Summary = killSummary(*e, v)
	if others > 0 {
		v.Summary += fmt.Sprintf(" (the kernel log holds %d other OOM kill(s) of the same minutes, in other cgroups: not the lab's)", others)
	}
	return v
}

// eventOf finds the kill of pid and counts the other kills.
func eventOf(rep *postmortem.Report, pid int) (*postmortem.Explained, int) {
	if rep == nil {
		return nil, 0
	}
	var found *postmortem.Explained
	for i := range rep.Events {
		if rep.Events[i].Victim.PID == pid && found == nil {
			found = &rep.Events[i]
		}
	}
	if found == nil {
		return nil, len(rep.Events)
	}
	return found, len(rep.Events) - 1
}

func check(v *Verdict, ok bool, missing string) {
	if !ok {
		v.Missing = append(v.Missing, missing)
	}
}

func killSummary(e postmortem.Explained, v Verdict) string {
	s := fmt.Sprintf("PID %d (%s%s) killed in memory cgroup %s (limit %s), anon-rss %s",
		e.Victim.PID, inert.Text(e.Victim.Name), roleOf(e.Victim.Role), inert.Text(e.Scope.Cgroup), units.OptBytes(e.Scope.LimitBytes), units.OptBytes(e.Victim.AnonBytes))
	if c := e.Crash; c != nil {
		s += fmt.Sprintf("; PostgreSQL crash restart paired by %s, down %s, recovery %s", c.MatchedBy, optDuration(c.Downtime), optDuration(c.Recovery))
	}
	if v.Explains {
		return "explains the kill: " + s
	}
	return "does not explain the kill (" + strings.Join(v.Missing, "; ") + "): " + s
}

func roleOf(r string) string {
	if r == "" {
		return ""
	}
	return ", " + inert.Text(r)
}

// judgeOutOfMemory says whether the post-mortem explains the protected
// run: no OOM kill, and the runaway backend's "out of memory" error.
func judgeOutOfMemory(rep *postmortem.Report, pid int, cgroupPath string) Verdict {
	var v Verdict
	if rep == nil {
		v.Missing = []string{"no post-mortem"}
		v.Summary = "no post-mortem"
		return v
	}
	mine := 0
	for _, e := range rep.Events {
		if e.Scope.Cgroup == cgroupPath || e.Victim.PID == pid {
			mine++
		}
	}
	check(&v, mine == 0, fmt.Sprintf("%d OOM kills in the lab's cgroup, want none", mine))
	var found *postmortem.OOMError
	for i := range rep.OutOfMemory {
		if p := rep.OutOfMemory[i].PID; p != nil && *p == pid {
			found = &rep.OutOfMemory[i]
		}
	}
	check(&v, found != nil, fmt.Sprintf("no \"out of memory\" error of the runaway backend %d", pid))
	v.Explains = len(v.Missing) == 0
	if found == nil {
		v.Summary = "does not explain the protected run: " + strings.Join(v.Missing, "; ")
		return v
	}
	v.Summary = fmt.Sprintf("no OOM kill in the lab's cgroup; PID %d failed with \"out of memory\" on a request of %s in memory context %s",
		pid, units.OptBytes(found.RequestBytes), inert.Text(found.Context))
	if !v.Explains {
		v.Summary = "does not explain the protected run (" + strings.Join(v.Missing, "; ") + "): " + v.Summary
	}
	return v
}

// optDuration shows a duration the logs did not give as unknown.
func optDuration(d *time.Duration) string {
	if d == nil {
		return units.Unknown
	}
	return d.Round(time.Millisecond).String()
}
