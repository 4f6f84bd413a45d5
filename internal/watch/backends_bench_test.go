package watch

import (
	"bytes"
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/cputime"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// BenchmarkBackendView1000 measures what the per-backend view adds to a
// tick with 1,000 client backends: reading pg_stat_activity with the
// queries over the verified connection (through dbmem's helper when run as
// root), building the view (every backend with its private cost, sorted)
// and laying it out at 80 columns. It reports the CPU time of dbmem's
// thread and the wall time per tick (the helper's CPU is its own process).
//
//	go test -run '^$' -bench BackendView1000 -benchtime 20x ./internal/watch
func BenchmarkBackendView1000(b *testing.B) {
	c := pgtest.Start(b, map[string]string{"shared_buffers": "128MB", "max_connections": "1100", "jit": "off"})
	ctx := context.Background()
	conns := make([]*pgx.Conn, 0, 1000)
	b.Cleanup(func() {
		for _, conn := range conns {
			conn.Close(ctx)
		}
	})
	for range 1000 {
		conn, err := c.Connect(ctx)
		if err != nil {
			b.Fatal(err)
		}
		conns = append(conns, conn)
		if _, err := conn.Exec(ctx, "SELECT count(*) FROM pg_class"); err != nil {
			b.Fatal(err)
		}
	}
	conn := postgres.Connector{Options: postgres.ConnOptions{Port: c.Port, Timeout: time.Minute}, Helper: postgres.NewHelper()}
	s := &sampler.Sampler{FS: liveSampler().FS, Live: conn, Backends: conn}
	smp, err := s.Sample(ctx, sampler.Discover)
	if err != nil {
		b.Fatal(err)
	}
	in := instanceOf(b, smp, c)
	b.Run("read", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var cpu, wall, helper time.Duration
		for b.Loop() {
			c0, t0, h0 := cputime.Thread(), time.Now(), childrenCPU()
			acts, _, gaps := s.ReadBackends(ctx, []*postgres.Instance{in})
			cpu, wall, helper = cpu+cputime.Thread()-c0, wall+time.Since(t0), helper+childrenCPU()-h0
			if len(gaps) > 0 || len(acts[in.PostmasterPID]) < 1000 {
				b.Fatalf("%d backends read, gaps %v", len(acts[in.PostmasterPID]), gaps)
			}
		}
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		b.ReportMetric(float64(helper.Microseconds())/1000/float64(b.N), "helper-cpu-ms/op")
		b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "wall-ms/op")
	})
	smp.Backends, _, _ = s.ReadBackends(ctx, []*postgres.Instance{in})
	b.Run("view", func(b *testing.B) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		var cpu time.Duration
		var buf bytes.Buffer
		for b.Loop() {
			c0 := cputime.Thread()
			f := Frame{At: time.Now(), Backends: backends(smp)}
			buf.Reset()
			for _, l := range backendLines(f, 80, backendView{rows: 20, keys: true}) {
				buf.WriteString(l.text)
			}
			cpu += cputime.Thread() - c0
		}
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	})
}

// childrenCPU is the CPU time of the reaped children (dbmem's helper).
func childrenCPU() time.Duration {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_CHILDREN, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
