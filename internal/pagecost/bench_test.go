package pagecost

import (
	"context"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/cputime"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
)

// Benchmarks run against one PostgreSQL started on first use and stopped
// by TestMain. DBMEM_BENCH_SHARED_BUFFERS (default 3GB) and
// DBMEM_BENCH_CONNS (default 20) size it; each connection reads a table of
// 90% of shared_buffers, so each backend maps that much shared memory
// through 4 KiB pages.
var bench struct {
	once    sync.Once
	cluster *pgcluster.Cluster
	readers *pgcluster.Readers
	err     error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.readers != nil {
		bench.readers.Close(context.Background())
	}
	if bench.cluster != nil {
		bench.cluster.Remove()
	}
	os.Exit(code)
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// benchBackends returns the PIDs of the benchmark cluster's readers.
func benchBackends(b *testing.B) []int {
	requireRoot(b)
	bench.once.Do(startBenchCluster)
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.readers.PIDs
}

func startBenchCluster() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	sb := envOr("DBMEM_BENCH_SHARED_BUFFERS", "3GB")
	conns, _ := strconv.Atoi(envOr("DBMEM_BENCH_CONNS", "20"))
	c, err := pgcluster.Create(ctx, pgcluster.Options{InitdbWithoutHugePages: true, Settings: map[string]string{
		"shared_buffers": sb, "huge_pages": "off", "max_connections": strconv.Itoa(conns + 10)}})
	if bench.cluster, bench.err = c, err; err != nil {
		return
	}
	if bench.err = c.Start(ctx); bench.err != nil {
		return
	}
	size := int64(float64(sizeBytes(sb)) * 0.9)
	if bench.err = c.CreateTable(ctx, "big", size); bench.err != nil {
		return
	}
	if bench.err = c.Prewarm(ctx, "big"); bench.err != nil {
		return
	}
	bench.readers, bench.err = c.OpenReaders(ctx, conns, 2, "big")
}

// sizeBytes parses "3GB" or "512MB".
func sizeBytes(s string) int64 {
	for suffix, mult := range map[string]int64{"GB": 1 << 30, "MB": 1 << 20} {
		if n, err := strconv.ParseInt(s[:max(0, len(s)-2)], 10, 64); err == nil && s[max(0, len(s)-2):] == suffix {
			return n * mult
		}
	}
	return 1 << 30
}

func benchMethod(b *testing.B, m Method, parallel int) {
	pids := benchBackends(b)
	fs := linux.DefaultFS()
	c0 := cputime.Process()
	for b.Loop() {
		costs, skipped, err := Measure(fs, pids, Options{Method: m, Parallel: parallel})
		if err != nil || len(skipped) > 0 || len(costs) != len(pids) {
			b.Fatalf("%d costs, skipped %v, err %v", len(costs), skipped, err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-c0)/float64(b.N)/float64(len(pids)), "cpu-ns/backend")
	b.ReportMetric(float64(b.Elapsed())/float64(b.N)/float64(len(pids)), "ns/backend")
}

// BenchmarkFast measures every benchmark backend with the fast path.
func BenchmarkFast(b *testing.B) { benchMethod(b, MethodFast, 1) }

// BenchmarkFastParallel2 is BenchmarkFast on 2 goroutines.
func BenchmarkFastParallel2(b *testing.B) { benchMethod(b, MethodFast, 2) }

// BenchmarkSmapsRollup measures every benchmark backend with smaps_rollup.
func BenchmarkSmapsRollup(b *testing.B) { benchMethod(b, MethodSmaps, 1) }

// BenchmarkSmapsRollupParallel2 is BenchmarkSmapsRollup on 2 goroutines.
func BenchmarkSmapsRollupParallel2(b *testing.B) { benchMethod(b, MethodSmaps, 2) }

// BenchmarkStatus measures every benchmark backend from status only.
func BenchmarkStatus(b *testing.B) { benchMethod(b, MethodStatus, 1) }
