package exporter

import (
	"context"
	"strconv"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/cputime"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// BenchmarkScrape500 measures a scrape with 500 client backends, each of
// which read a 200 MiB table through shared_buffers (4 KiB pages): the
// status-only scrape Prometheus triggers, and the background smaps pass.
// cpu-ms/op is the whole process per op (collectors, encoding, GC),
// read-cpu-ms/op the status read alone (its thread). It starts its own server (about 2 GiB of memory) and runs only under
// -bench:
//
//	go test -run '^$' -bench Scrape500 -benchtime 20x ./internal/exporter
func BenchmarkScrape500(b *testing.B) { benchScrape(b, 500, 200<<20) }

// BenchmarkScrape1000 is the same with 1,000 client backends (max_connections
// 1010), each of which read a 64 MiB table: a scrape serves every
// backend's exact cost (Pss) from the last smaps pass, which the smaps
// sub-benchmark measures. series/op is the number of samples a scrape
// serves (it does not grow with the backends: no per-process label). About
// 4 GiB of memory.
//
//	go test -run '^$' -bench Scrape1000 -benchtime 20x ./internal/exporter
func BenchmarkScrape1000(b *testing.B) { benchScrape(b, 1000, 64<<20) }

func benchScrape(b *testing.B, backends int, table int64) {
	c := pgtest.Start(b, map[string]string{"max_connections": strconv.Itoa(backends + backends/50 + 10), "shared_buffers": "256MB"})
	pgtest.Readers(b, c, backends, table)
	s := &sampler.Sampler{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}},
		Check: advise.Checker(advise.Options{})}
	e := New(Options{Sampler: s})
	reg := prometheus.NewRegistry()
	reg.MustRegister(e)
	ctx := context.Background()
	first, err := s.Sample(ctx, sampler.Status) // discovery and connection, outside the timing
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("host: %d processes; first (discovery) sample %v CPU, %v wall", len(first.Processes), first.Cost.CPU, first.Cost.Wall)
	checkConnections(b, reg, c.Port, backends)
	if err := e.RefreshSmaps(ctx); err != nil { // the scrapes serve exact costs
		b.Fatal(err)
	}
	b.Run("status", func(b *testing.B) {
		cpu0 := cputime.Process()
		var read float64
		var series int
		for b.Loop() {
			mfs, err := reg.Gather()
			if err != nil {
				b.Fatal(err)
			}
			read += sampleCPU(mfs)
			series = countSeries(mfs)
		}
		b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		b.ReportMetric(read/float64(b.N)*1e3, "read-cpu-ms/op")
		b.ReportMetric(float64(series), "series/op")
	})
	b.Run("smaps", func(b *testing.B) { benchPass(b, e) })
	// The same pass through the exact fast path (dbmem exporter's default,
	// --method auto): pagemap and /proc/kpagecount instead of a page-table
	// walk of the shared segment per backend.
	fast := &sampler.Sampler{FS: s.FS, Live: s.Live, Method: measure.Auto}
	b.Run("fast", func(b *testing.B) { benchPass(b, New(Options{Sampler: fast})) })
}

// benchPass measures the background pass that gives every backend's exact
// cost.
func benchPass(b *testing.B, e *Exporter) {
	ctx := context.Background()
	cpu0 := cputime.Process()
	for b.Loop() {
		if err := e.RefreshSmaps(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
}

func countSeries(mfs []*dto.MetricFamily) int {
	n := 0
	for _, mf := range mfs {
		n += len(mf.GetMetric())
	}
	return n
}

// sampleCPU is the CPU time the scrape's status read reported.
func sampleCPU(mfs []*dto.MetricFamily) float64 {
	for _, mf := range mfs {
		if mf.GetName() == "dbmem_scrape_collector_cpu_seconds" {
			for _, m := range mf.GetMetric() {
				return m.GetGauge().GetValue()
			}
		}
	}
	return 0
}

func checkConnections(b *testing.B, reg *prometheus.Registry, port, want int) {
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "dbmem_postgres_connections" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if label(m, "port") == strconv.Itoa(port) && int(m.GetGauge().GetValue()) == want {
				return
			}
		}
	}
	b.Fatalf("the exporter does not show %d connections on port %d", want, port)
}
