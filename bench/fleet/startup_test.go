package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// The fixed cost of `dbmem report` (issue 23 item 9): everything but the
// private cost of each process. BenchmarkReportFixed runs the built binary
// with --method status (no Pss_Anon at all) as a child per iteration
// against a throwaway cluster holding DBMEM_BENCH_CONNS idle client
// backends (default 200), beside whatever else runs on the host, and
// reports wall and CPU milliseconds per run (CPU: user + system of dbmem
// and of the helpers it reaps). With DBMEM_BENCH_BASE naming another
// binary (an earlier build), each iteration runs both, one after the
// other, so that both see the same load: base-wall-ms/op and
// base-cpu-ms/op are the other binary's. BenchmarkProcessStart runs
// `dbmem --version`: the floor of any run. DBMEM_BENCH_DBMEM names the
// binary (default: built from this tree). As root:
//
//	go test -p 1 -count=1 -run '^$' -bench 'ReportFixed|ProcessStart' -benchtime 20x ./bench/fleet/
var idle struct {
	once  sync.Once
	c     *pgcluster.Cluster
	conns []*pgx.Conn
	bin   string
	err   error
}

// idleCluster starts the cluster and its idle connections once per test
// binary; TestMain's closeIdle ends them.
func idleCluster(b *testing.B) string {
	if os.Geteuid() != 0 {
		b.Skip("run as root: dbmem report's helper and fast path need it")
	}
	n, err := strconv.Atoi(envOr("DBMEM_BENCH_CONNS", "200"))
	if err != nil || n < 1 {
		b.Fatalf("DBMEM_BENCH_CONNS=%q: want a positive number", os.Getenv("DBMEM_BENCH_CONNS"))
	}
	idle.once.Do(func() {
		if idle.bin, idle.err = dbmemBinary(); idle.err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		idle.c, idle.err = pgcluster.Create(ctx, pgcluster.Options{InitdbWithoutHugePages: true,
			Settings: map[string]string{"max_connections": strconv.Itoa(n + 20), "shared_buffers": "128MB", "huge_pages": "off"}})
		if idle.err == nil {
			if idle.err = idle.c.Start(ctx); idle.err == nil {
				idle.conns, idle.err = openIdle(ctx, idle.c, n)
			}
		}
	})
	if idle.err != nil {
		b.Fatal(idle.err)
	}
	return idle.bin
}

// closeIdle closes the connections and removes the cluster.
func closeIdle() {
	for _, conn := range idle.conns {
		conn.Close(context.Background())
	}
	if idle.c != nil {
		idle.c.Remove()
	}
	if os.Getenv("DBMEM_BENCH_DBMEM") == "" && idle.bin != "" {
		os.RemoveAll(filepath.Dir(idle.bin))
	}
}

// dbmemBinary is DBMEM_BENCH_DBMEM, or dbmem built from this tree.
func dbmemBinary() (string, error) {
	if p := os.Getenv("DBMEM_BENCH_DBMEM"); p != "" {
		return p, nil
	}
	dir, err := os.MkdirTemp("", "dbmem-bench-")
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, "dbmem")
	cmd := exec.Command("go", "build", "-o", out, "../../cmd/dbmem")
	cmd.Stderr = os.Stderr
	return out, cmd.Run()
}

// openIdle opens n connections that stay idle.
func openIdle(ctx context.Context, c *pgcluster.Cluster, n int) ([]*pgx.Conn, error) {
	var out []*pgx.Conn
	for i := 0; i < n; i++ {
		conn, err := c.Connect(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, conn)
	}
	return out, nil
}

// childRun runs bin with args once and returns its wall and CPU time.
func childRun(b *testing.B, bin string, args ...string) (wall, cpu time.Duration) {
	start := time.Now()
	cmd := exec.Command(bin, args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return time.Since(start), cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// benchChild runs the binary (and DBMEM_BENCH_BASE's, if set) with args
// once per iteration and reports their wall and CPU milliseconds per run.
func benchChild(b *testing.B, bin string, args ...string) {
	base := os.Getenv("DBMEM_BENCH_BASE")
	var wall, cpu, baseWall, baseCPU time.Duration
	for b.Loop() {
		w, c := childRun(b, bin, args...)
		wall, cpu = wall+w, cpu+c
		if base != "" {
			w, c := childRun(b, base, args...)
			baseWall, baseCPU = baseWall+w, baseCPU+c
		}
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(b.N) }
	b.ReportMetric(ms(wall), "wall-ms/op")
	b.ReportMetric(ms(cpu), "cpu-ms/op")
	if base != "" {
		b.ReportMetric(ms(baseWall), "base-wall-ms/op")
		b.ReportMetric(ms(baseCPU), "base-cpu-ms/op")
	}
}

func BenchmarkProcessStart(b *testing.B) {
	benchChild(b, idleCluster(b), "--version")
}

func BenchmarkReportFixed(b *testing.B) {
	bin := idleCluster(b)
	b.Run("status", func(b *testing.B) { benchChild(b, bin, "report", "--method", "status") })
	b.Run("status-no-budget", func(b *testing.B) { benchChild(b, bin, "report", "--method", "status", "--no-budget") })
	b.Run("status-no-connect", func(b *testing.B) { benchChild(b, bin, "report", "--method", "status", "--no-connect") })
}

// TestHoldIdleCluster keeps a cluster of idle backends up for
// DBMEM_BENCH_HOLD (e.g. 30m), to profile dbmem against it by hand.
func TestHoldIdleCluster(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("DBMEM_BENCH_HOLD"))
	if err != nil {
		t.Skip("set DBMEM_BENCH_HOLD=30m to hold a cluster of idle backends for profiling")
	}
	n, _ := strconv.Atoi(envOr("DBMEM_BENCH_CONNS", "200"))
	c := pgtest.Start(t, map[string]string{"max_connections": strconv.Itoa(n + 20), "shared_buffers": "128MB"})
	conns, err := openIdle(context.Background(), c, n)
	defer func() {
		for _, conn := range conns {
			conn.Close(context.Background())
		}
	}()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("holding %d idle backends of the cluster on port %d (%s) for %s", n, c.Port, c.DataDir, d)
	time.Sleep(d)
}
