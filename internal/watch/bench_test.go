package watch

import (
	"context"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// The tick benchmarks measure what one tick costs the host with 100 client
// backends that each read a 1 GiB table through shared_buffers, and report
// the tick's own CPU time (the reading thread, user + system) per op. They
// start their own server (about 2 GiB) and run only under -bench:
//
//	go test -run '^$' -bench Tick100 -benchtime 10x ./internal/watch
func BenchmarkTick100(b *testing.B) {
	c := pgtest.Start(b, map[string]string{"shared_buffers": "1280MB", "max_connections": "120", "huge_pages": "off"})
	benchTicks(b, c)
}

// BenchmarkTick100HugePages is the same with shared memory in 2 MiB pages
// (the pool grows for the test and is restored after).
func BenchmarkTick100HugePages(b *testing.B) {
	c, _ := pgtest.StartWithHugePages(b, map[string]string{"shared_buffers": "1280MB", "max_connections": "120"})
	benchTicks(b, c)
}

func benchTicks(b *testing.B, c *pgcluster.Cluster) {
	pgtest.Readers(b, c, 100, 1<<30)
	s, ctx := liveSampler(), context.Background()
	if _, err := s.Sample(ctx, sampler.Status); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []sampler.Mode{sampler.Status, sampler.Smaps} {
		b.Run(mode.String(), func(b *testing.B) {
			var cpu time.Duration
			other := 0
			for b.Loop() {
				smp, err := s.Sample(ctx, mode)
				if err != nil {
					b.Fatal(err)
				}
				cpu += smp.Cost.CPU
				if smp.Mode != mode {
					other++ // another cluster on the machine started or stopped
				}
			}
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(other)/float64(b.N), "rediscovered/op")
		})
	}
}
