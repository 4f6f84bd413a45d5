package lab

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// FieldReportOOM is what the field report (seed 001) measured: PostgreSQL
// 12 on a 5 GB machine with 1 GB of swap and shared_buffers 1 GB.
var FieldReportOOM = []struct{ What, Field string }{
	{"machine", "5 GB RAM, 1 GB swap, Debian 9, PostgreSQL 12, shared_buffers 1 GB, pgbench -c15 in the background (about 230 TPS)"},
	{"runaway query", "EXPLAIN (ANALYZE,BUFFERS,SETTINGS) SELECT i FROM generate_series(1,50000000) i ORDER BY i DESC, work_mem 2047GB"},
	{"unprotected", "swap filled, then the OOM killer killed the backend (anon-rss 4.3 GiB) after 30 s; the postmaster terminated every session and reinitialized; reconnection after a few seconds"},
	{"with strict overcommit", "vm.overcommit_memory=2, ratio 60: ERROR: out of memory, failed on request of size 536870912 in ExecutorState; the session, the instance and the other queries stayed up"},
}

// OOMText writes the terminal summary of an OOM result.
func OOMText(w io.Writer, r *OOMResult) error {
	var b strings.Builder
	writeOOMHeader(&b, r)
	if r.Unprotected != nil {
		g := &grid{rows: OOMRows(r)}
		g.render(&b)
	}
	for _, run := range []*OOMRun{r.Unprotected, r.Protected} {
		writeOOMRun(&b, run, r.Protection)
	}
	writeProtection(&b, r.Protection)
	writeFieldOOM(&b, r)
	writeOOMFooter(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeOOMHeader(b *strings.Builder, r *OOMResult) {
	h, c := r.Host, r.Config
	fmt.Fprintf(b, "dbmem lab oom: PostgreSQL %s, kernel %s, %d CPUs, %s RAM\n", h.PGVersion, h.KernelRelease, h.CPUs, units.Bytes(h.MemTotalBytes))
	if g := r.Cgroup; g != nil {
		fmt.Fprintf(b, "the machine: memory cgroup v%d %s, limit %s, no swap; shared_buffers %s\n", g.Version(), g.Path, units.Bytes(c.LimitBytes), units.Bytes(c.SharedBuffersBytes))
	}
	fmt.Fprintf(b, "load: pgbench TPC-B-like, %d clients, scale %d, and %d idle sessions; then, with work_mem %s:\n  %s\n\n",
		c.Clients, c.Scale, c.IdleSessions, c.WorkMem, c.Query)
}

// OOMRows is the comparison of the two runs: a header, then one row per
// figure.
func OOMRows(r *OOMResult) [][]string {
	g := &grid{}
	runs := []*OOMRun{r.Unprotected}
	head := []string{"", "unprotected"}
	if r.Protected != nil {
		runs = append(runs, r.Protected)
		head = append(head, "protected ("+protectionWord(r.Protection)+")")
	}
	g.add(head...)
	add := func(label string, f func(*OOMRun) string) {
		cells := []string{label}
		for _, x := range runs {
			cells = append(cells, f(x))
		}
		g.add(cells...)
	}
	add("the runaway query", func(x *OOMRun) string { return x.Outcome })
	add("  after", func(x *OOMRun) string { return secs(x.QueryEnd.Sub(x.QueryStart)) })
	add("cgroup peak, OOM kills", cgroupCell)
	add("sessions lost", sessionsCell)
	add("the server", serverCell)
	add("TPS before", func(x *OOMRun) string { return tpsCell(x.TPS.Before) })
	add("TPS during", func(x *OOMRun) string { return tpsCell(x.TPS.During) })
	add("TPS after", func(x *OOMRun) string { return tpsCell(x.TPS.After) })
	add("dbmem postmortem explains it", func(x *OOMRun) string { return yesNo(x.Verdict.Explains) })
	return g.rows
}

func protectionWord(p *Protection) string {
	switch {
	case p == nil:
		return "not run"
	case p.Real:
		return "vm.overcommit_memory=2"
	}
	return "EMULATED strict overcommit"
}

func secs(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func cgroupCell(x *OOMRun) string {
	peak, kills := "?", "?"
	if x.PeakBytes != nil {
		peak = units.Bytes(*x.PeakBytes)
	}
	if x.OOMKills != nil {
		kills = fmt.Sprint(*x.OOMKills)
	}
	return peak + ", " + kills
}

func sessionsCell(x *OOMRun) string {
	s := x.Sessions
	return fmt.Sprintf("%d of %d (%d pgbench, %d idle, %s)", s.Lost, s.Open, s.PgbenchAborted, s.IdleLost, ownSession(s.RunawayLost))
}

func ownSession(lost bool) string {
	if lost {
		return "its own"
	}
	return "its own kept"
}

func serverCell(x *OOMRun) string {
	if x.ReadyAfter != nil {
		return fmt.Sprintf("restarted, ready %s after the kill", secs(*x.ReadyAfter))
	}
	if x.ServerDowntime != nil {
		return fmt.Sprintf("restarted, ready %s after the kill (server log)", secs(*x.ServerDowntime))
	}
	if x.Outcome == OutcomeOutOfMemory {
		return "stayed up"
	}
	return "-"
}

func tpsCell(v *float64) string {
	if v == nil {
		return "not measured"
	}
	return fmt.Sprintf("%.0f", *v)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func writeOOMRun(b *strings.Builder, x *OOMRun, p *Protection) {
	if x == nil {
		return
	}
	fmt.Fprintf(b, "\n%s: the runaway backend (PID %d): %s", x.Name, x.QueryPID, x.Outcome)
	if x.QueryError != "" {
		fmt.Fprintf(b, ": %s", x.QueryError)
	}
	b.WriteString("\n")
	if x.KillLine != "" {
		fmt.Fprintf(b, "  kernel: %s\n", x.KillLine)
	}
	if x.KilledAt != nil {
		fmt.Fprintf(b, "  timeline: query started %s; killed %s (kernel log) %s after; backend gone +%s; server ready +%s (server log); first query accepted +%s\n",
			x.QueryStart.UTC().Format("15:04:05.000"), x.KilledAt.UTC().Format("15:04:05.000"), secs(x.KilledAt.Sub(x.QueryStart)),
			since(x.KilledAt, x.GoneAt), durOr(x.ServerDowntime), since(x.KilledAt, x.ReadyAt))
	}
	for _, l := range x.ServerLog {
		fmt.Fprintf(b, "  server: %s\n", l)
	}
	if x.Sessions.IdleError != "" {
		fmt.Fprintf(b, "  an idle session was told: %s\n", x.Sessions.IdleError)
	}
	if x.Commit != nil && p != nil && p.Strict != nil {
		fmt.Fprintf(b, "  %s\n", strictSummary(x.Commit, p.Strict.HeadroomBytes))
	}
	fmt.Fprintf(b, "  dbmem postmortem: %s\n", x.Verdict.Summary)
}

func writeProtection(b *strings.Builder, p *Protection) {
	if p == nil {
		return
	}
	if p.Real && p.Strict != nil {
		s := p.Strict
		fmt.Fprintf(b, "\nProtection: vm.overcommit_memory %s -> 2, vm.overcommit_ratio %s -> %d for the query only (CommitLimit %s)\n",
			s.ModeBefore, s.RatioBefore, s.Ratio, units.Bytes(s.CommitLimitBytes))
		for _, x := range s.Proof {
			fmt.Fprintf(b, "  proved: %s\n", x)
		}
		return
	}
	fmt.Fprintf(b, "\nProtection: EMULATED (the host's vm.overcommit_memory was not changed): RLIMIT_AS of the postmaster = a new backend's VmSize %s + the budget %s = %s\n",
		units.Bytes(p.BackendVmSizeBytes), units.Bytes(p.BudgetBytes), units.Bytes(p.AddressSpaceLimitBytes))
	fmt.Fprintf(b, "  dbmem plan's formula for a %s machine: ratio %s -> CommitLimit %s; the cluster had committed %s (shared memory + VmData + VmStk) -> budget %s\n",
		units.Bytes(p.MachineBytes), p.Formula, units.Bytes(p.CommitLimitBytes), units.Bytes(p.ClusterCommitBytes), units.Bytes(p.BudgetBytes))
	for _, d := range p.Differs {
		fmt.Fprintf(b, "  - %s\n", d)
	}
}

func writeFieldOOM(b *strings.Builder, r *OOMResult) {
	fmt.Fprintf(b, "\nNext to the field report (seed 001):\n")
	this := FieldThisRun(r)
	for i, f := range FieldReportOOM {
		fmt.Fprintf(b, "  %-22s field report: %s\n  %-22s this run:     %s\n", f.What, f.Field, "", this[i])
	}
}

// FieldThisRun is this run's figures in the order of FieldReportOOM.
func FieldThisRun(r *OOMResult) []string {
	c := r.Config
	out := []string{
		fmt.Sprintf("a memory cgroup of %s, no swap, PostgreSQL %s, shared_buffers %s, pgbench -c%d in the background", units.Bytes(c.LimitBytes), r.Host.PGVersion, units.Bytes(c.SharedBuffersBytes), c.Clients),
		fmt.Sprintf("the same, %d rows, work_mem %s", c.Rows, c.WorkMem), "-", "-",
	}
	if u := r.Unprotected; u != nil {
		out[2] = fmt.Sprintf("%s after %s; %s; %d of %d sessions lost; TPS %s before, %s during, %s after",
			u.Outcome, secs(u.QueryEnd.Sub(u.QueryStart)), serverCell(u), u.Sessions.Lost, u.Sessions.Open, tpsCell(u.TPS.Before), tpsCell(u.TPS.During), tpsCell(u.TPS.After))
	}
	if p := r.Protected; p != nil {
		out[3] = fmt.Sprintf("(%s) %s after %s: %s; %s; %d of %d sessions lost; TPS %s before, %s during, %s after",
			protectionWord(r.Protection), p.Outcome, secs(p.QueryEnd.Sub(p.QueryStart)), p.QueryError, serverCell(p), p.Sessions.Lost, p.Sessions.Open,
			tpsCell(p.TPS.Before), tpsCell(p.TPS.During), tpsCell(p.TPS.After))
	}
	return out
}

func writeOOMFooter(b *strings.Builder, r *OOMResult) {
	writeRestored(b, r.Restored, r.Notes)
	fmt.Fprintf(b, "Took %s%s.\n", r.Elapsed.Round(time.Second), lockWait(r.Steps))
}

// lockWait says how much of the run waited for the machine-wide lock.
func lockWait(steps []StepTime) string {
	for _, s := range steps {
		if s.Name == LockWaitStep {
			return fmt.Sprintf(" (%s of it waiting for the machine-wide lock: a test or another lab changed kernel settings)", s.Elapsed.Round(time.Second))
		}
	}
	return ""
}

func since(from, to *time.Time) string {
	if from == nil || to == nil {
		return "?"
	}
	return fmt.Sprintf("%.2f s", to.Sub(*from).Seconds())
}

func durOr(d *time.Duration) string {
	if d == nil {
		return "?"
	}
	return secs(*d)
}
