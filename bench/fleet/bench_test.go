package main

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pagecost"
)

// The benchmarks (go test -run '^$' -bench . ./bench/fleet/, as root) run
// each reader of the fleet comparison as a child process per iteration
// against one cluster, started on first use: DBMEM_BENCH_CONNS backends
// (default 100) that each read a table of 90% of
// DBMEM_BENCH_SHARED_BUFFERS (default 1GB), huge_pages=off. bench/run
// runs the full comparison (200, 500, 1,000 backends, huge pages off and
// on) instead.
var shared struct {
	once sync.Once
	b    *bench
	pids []int
	err  error
}

// TestMain lets the test binary serve as its own `measure` and `psmem`
// child, and stops the benchmark cluster at the end.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "measure" || os.Args[1] == "psmem") {
		os.Exit(run(os.Args[1:]))
	}
	code := m.Run()
	if shared.b != nil {
		shared.b.remove()
	}
	closeIdle()
	os.Exit(code)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// benchTarget starts the cluster once and returns the backends to measure.
func benchTarget(b *testing.B) target {
	if os.Geteuid() != 0 {
		b.Skip("run as root: the fast path reads /proc/kpagecount")
	}
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
		defer cancel()
		n, _ := strconv.Atoi(envOr("DBMEM_BENCH_CONNS", "100"))
		cfg := config{Conns: []int{n}, Huge: []string{"off"}, Shared: envOr("DBMEM_BENCH_SHARED_BUFFERS", "1GB"), Parallel: 2, Margin: 3 << 30}
		cfg.Small, cfg.SmallAt = cfg.Shared, n
		g := cfg.groups()[0]
		if shared.b, shared.err = newBench(ctx, cfg); shared.err != nil {
			return
		}
		if shared.err = shared.b.configure(ctx, g); shared.err == nil {
			if shared.err = shared.b.start(ctx, g); shared.err == nil {
				shared.pids, shared.err = shared.b.openReaders(ctx, g, n)
			}
		}
	})
	if shared.err != nil {
		b.Fatal(shared.err)
	}
	self, _ := os.Executable()
	return target{PIDs: shared.pids, Regex: shared.b.backendRegex(), Self: self, Smem: "/usr/bin/smem"}
}

// benchTool runs tl once per iteration and reports its CPU time (user+sys
// of the child) and wall time per backend, and its peak RSS.
func benchTool(b *testing.B, tl tool) {
	t := benchTarget(b)
	var cpu, rss int64
	for b.Loop() {
		var r toolRun
		if err := r.runOnce(context.Background(), tl, t); err != nil {
			b.Fatal(err)
		}
		cpu, rss = cpu+r.Runs[0].CPUNS(), max(rss, r.Runs[0].MaxRSSKB)
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/float64(len(t.PIDs)), "cpu-ns/backend")
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(len(t.PIDs)), "ns/backend")
	b.ReportMetric(float64(rss), "peak-rss-kB")
}

func BenchmarkFast(b *testing.B)        { benchTool(b, toolFast) }
func BenchmarkFastPagemap(b *testing.B) { benchTool(b, toolPagemap) }
func BenchmarkSmaps(b *testing.B)       { benchTool(b, toolSmaps) }
func BenchmarkStatus(b *testing.B)      { benchTool(b, toolStatus) }
func BenchmarkPsmem(b *testing.B)       { benchTool(b, toolPsmem) }

func BenchmarkSmem(b *testing.B) {
	if _, err := os.Stat("/usr/bin/smem"); err != nil {
		b.Skip("smem not installed (apt-get install smem)")
	}
	benchTool(b, toolSmem)
}

// BenchmarkStatusScan1000 reads status (the status method) of 1,000 idle
// processes in-process: the cost that does not depend on memory size.
func BenchmarkStatusScan1000(b *testing.B) {
	pids := startSleepers(b, 1000)
	for b.Loop() {
		costs, _, err := pagecost.Measure(linux.DefaultFS(), pids, pagecost.Options{Method: pagecost.MethodStatus})
		if err != nil || len(costs) != len(pids) {
			b.Fatalf("%d costs, %v", len(costs), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/1e6, "ms/1000-processes")
}

// startSleepers starts n sleep processes, killed (by PID) at the end.
func startSleepers(b *testing.B, n int) []int {
	var pids []int
	for i := 0; i < n; i++ {
		c := exec.Command("sleep", "3600")
		if err := c.Start(); err != nil {
			b.Fatal(err)
		}
		pids = append(pids, c.Process.Pid)
		b.Cleanup(func() { c.Process.Kill(); c.Wait() })
	}
	return pids
}
