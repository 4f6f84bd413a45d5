package lab

import (
	"context"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// Bench is the pgbench select-only runs, alternating huge_pages off and on.
type Bench struct {
	Clients int        `json:"clients"`
	Seconds float64    `json:"seconds"`
	Runs    []BenchRun `json:"runs"`
	// TLB says whether dTLB counters were read, or why not.
	TLB string `json:"tlb"`
}

// BenchRun is one pgbench run on a freshly started, prewarmed server.
type BenchRun struct {
	Index        int     `json:"index"`
	HugePages    Mode    `json:"huge_pages"`
	TPS          float64 `json:"tps"`
	Transactions int64   `json:"transactions"`
	// MinFlt and MajFlt are the page faults of the backends that served
	// the run (the postmaster's cminflt/cmajflt difference).
	MinFlt       uint64  `json:"min_flt"`
	MajFlt       uint64  `json:"maj_flt"`
	FaultsPerSec float64 `json:"faults_per_sec"`
	// DTLB counts, host-wide, where perf can read them.
	DTLBLoadMisses *uint64 `json:"dtlb_load_misses,omitempty"`
	DTLBLoads      *uint64 `json:"dtlb_loads,omitempty"`
}

// bench runs pgbench -S, alternating the modes, BenchRuns times each.
func (r *run) bench(ctx context.Context) error {
	b := &Bench{Clients: r.cfg.BenchClients, Seconds: r.cfg.BenchSeconds}
	r.res.Bench = b
	perf, why := perfAvailable(ctx, r.fs)
	b.TLB = why
	for i := 1; i <= r.cfg.BenchRuns; i++ {
		for _, m := range r.cfg.Modes {
			run, err := r.benchRun(ctx, m, len(b.Runs)+1, perf)
			if err != nil {
				return fmt.Errorf("pgbench run %d (huge_pages=%s): %w", len(b.Runs)+1, m, err)
			}
			b.Runs = append(b.Runs, run)
		}
	}
	return nil
}

// benchRun starts the server with mode m, prewarms the table and its index,
// runs pgbench and stops the server.
func (r *run) benchRun(ctx context.Context, m Mode, idx int, perf bool) (BenchRun, error) {
	br := BenchRun{Index: idx, HugePages: m}
	if err := r.startMode(ctx, m); err != nil {
		return br, err
	}
	defer r.c.Stop(context.Background())
	r.steps.begin(fmt.Sprintf("pgbench run %d, huge_pages=%s: prewarm", idx, m), 0)
	if err := r.c.Exec(ctx, "SELECT pg_prewarm('pgbench_accounts')", "SELECT pg_prewarm('pgbench_accounts_pkey')"); err != nil {
		return br, err
	}
	secs := int(r.cfg.BenchSeconds)
	r.steps.begin(fmt.Sprintf("pgbench run %d, huge_pages=%s: select-only, %d clients, %d s", idx, m, r.cfg.BenchClients, secs), 0)
	f0, err := readChildFaults(r.fs, r.c.PID)
	if err != nil {
		return br, err
	}
	tlb := make(chan map[string]uint64, 1)
	if perf {
		go func() { c, _ := perfDuring(ctx, time.Duration(secs)*time.Second); tlb <- c }()
	}
	out, err := r.c.Pgbench(ctx, "-n", "-S", "-M", "prepared", "-c", fmt.Sprint(r.cfg.BenchClients),
		"-j", fmt.Sprint(min(r.cfg.BenchClients, 2)), "-T", fmt.Sprint(secs))
	if err != nil {
		return br, err
	}
	res, err := pgcluster.ParsePgbench(out)
	if err != nil {
		return br, err
	}
	br.TPS, br.Transactions = res.TPS, res.Transactions
	r.waitBackendsGone(r.c.PID)
	f1, err := readChildFaults(r.fs, r.c.PID)
	if err != nil {
		return br, err
	}
	br.MinFlt, br.MajFlt = units.Sub(f1.Min, f0.Min), units.Sub(f1.Maj, f0.Maj)
	br.FaultsPerSec = float64(br.MinFlt+br.MajFlt) / float64(secs)
	if perf {
		c := <-tlb
		if v, ok := c["dTLB-load-misses"]; ok {
			br.DTLBLoadMisses = &v
		}
		if v, ok := c["dTLB-loads"]; ok {
			br.DTLBLoads = &v
		}
	}
	r.steps.end()
	return br, nil
}

// waitBackendsGone waits (up to 2 minutes: backends exit slowly on a busy
// host) until the postmaster has reaped every client backend, so that their
// faults are in its cminflt.
func (r *run) waitBackendsGone(pm int) {
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !hasClients(r.fs, pm) {
			return
		}
	}
}

// hasClients reports whether pm has a client backend, or a child that has
// exited but is not reaped yet.
func hasClients(fs linux.FS, pm int) bool {
	pids, err := children(fs, pm)
	if err != nil {
		return false
	}
	for _, pid := range pids {
		st, err := linux.ReadStat(fs, pid)
		if err == nil && st.State == "Z" {
			return true
		}
		args, err := linux.ReadCmdline(fs, pid)
		if err == nil && len(args) > 0 && postgres.ParseTitle(args[0], "").Role == postgres.RoleClient {
			return true
		}
	}
	return false
}
