package exporter

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// serveLive serves an exporter of the real host on a free loopback port
// until the test ends and returns its base URL.
func serveLive(t *testing.T, webConfig string) (string, *Exporter) {
	t.Helper()
	s := &sampler.Sampler{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}},
		Check: advise.Checker(advise.Options{})}
	e := New(Options{Sampler: s})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	h, err := Handler(Registry(e), ServeOptions{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, l, h, webConfig, quiet) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + l.Addr().String(), e
}

// scrape fetches and parses /metrics.
func scrape(t *testing.T, base string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return mfs
}

// value finds the sample of name whose labels include want.
func value(mfs map[string]*dto.MetricFamily, name string, want map[string]string) (float64, bool) {
	for _, m := range mfs[name].GetMetric() {
		ok := true
		for k, v := range want {
			ok = ok && label(m, k) == v
		}
		if ok {
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func readInt(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestLiveScrape(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "25"})
	pgtest.Readers(t, c, 3, 32<<20)
	base, e := serveLive(t, "")
	if err := e.RefreshSmaps(context.Background()); err != nil {
		t.Fatal(err)
	}
	mfs := scrape(t, base)
	inst := map[string]string{"port": strconv.Itoa(c.Port), "data_dir": c.DataDir}
	client := map[string]string{"port": inst["port"], "role": "client backend"}
	checks := []struct {
		name string
		lbl  map[string]string
		want func(float64) bool
		what string
	}{
		{"dbmem_postgres_connections", inst, func(v float64) bool { return v == 3 }, "3 readers"},
		{"dbmem_postgres_max_connections", inst, func(v float64) bool { return v == 25 }, "25"},
		{"dbmem_postgres_processes", client, func(v float64) bool { return v == 3 }, "3 client backends"},
		{"dbmem_postgres_pss_private_bytes", client, func(v float64) bool { return v > 1<<20 }, "> 1 MiB"},
		{"dbmem_postgres_shared_memory_page_size_bytes", inst, func(v float64) bool { return v == 4096 }, "4 KiB pages (huge_pages=try, no pool)"},
		{"dbmem_postgres_postmaster_oom_score_adj", inst, func(v float64) bool {
			return int(v) == readInt(t, fmt.Sprintf("/proc/%d/oom_score_adj", c.PID))
		}, "what /proc says"},
		{"dbmem_scrape_collector_success", map[string]string{"collector": "status"}, func(v float64) bool { return v == 1 }, "1"},
		{"dbmem_smaps_success", nil, func(v float64) bool { return v == 1 }, "1"},
	}
	for _, ck := range checks {
		v, ok := value(mfs, ck.name, ck.lbl)
		if !ok || !ck.want(v) {
			t.Errorf("%s%v = %v (found %v), want %s", ck.name, ck.lbl, v, ok, ck.what)
		}
	}
	est, _ := value(mfs, "dbmem_postgres_private_bytes", client)
	pss, _ := value(mfs, "dbmem_postgres_pss_private_bytes", client)
	if est < pss {
		t.Errorf("client backends: RssAnon-based %v below Pss-based %v; RssAnon >= Pss_Anon always", est, pss)
	}
	for _, n := range []string{"dbmem_findings", "go_goroutines", "process_cpu_seconds_total", "dbmem_postgres_worst_case_bytes"} {
		if len(mfs[n].GetMetric()) == 0 {
			t.Errorf("%s missing", n)
		}
	}
}

// The background pass through the exact fast path (--method auto, the
// default) gives the client backends' exact private cost as smaps_rollup
// does, within 5%: the two passes run a moment apart on live backends,
// whose private memory moves by about 1% between them (the fast path itself
// matched smaps_rollup to 0.019% when both read the same moment, in
// docs/performance.md and internal/pagecost's tests).
func TestFastPassMatchesSmaps(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the exact fast path reads /proc/kpagecount: needs root")
	}
	c := pgtest.Start(t, map[string]string{"shared_buffers": "128MB", "max_connections": "25"})
	pgtest.Readers(t, c, 4, 64<<20)
	pss := map[measure.Method]float64{}
	for _, m := range []measure.Method{measure.Smaps, measure.Auto} {
		s := &sampler.Sampler{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}, Method: m}
		e := New(Options{Sampler: s})
		if err := e.RefreshSmaps(context.Background()); err != nil {
			t.Fatalf("%s pass: %v", m, err)
		}
		got := gather(t, e)
		for _, x := range got["dbmem_postgres_pss_private_bytes"] {
			if label(x, "port") == strconv.Itoa(c.Port) && label(x, "role") == "client backend" {
				pss[m] = x.GetGauge().GetValue()
			}
		}
	}
	smaps, fast := pss[measure.Smaps], pss[measure.Auto]
	t.Logf("client backends' Pss_Anon + VmPTE + VmSwap: smaps_rollup %.0f B, fast path %.0f B", smaps, fast)
	if smaps < 1<<20 || fast < 0.95*smaps || fast > 1.05*smaps {
		t.Errorf("fast path %.0f B, smaps_rollup %.0f B: want within 5%%", fast, smaps)
	}
}

// ServeListener serves h on an open listener (tests use a free loopback
// port) with the web configuration file, if any, until ctx ends.
func ServeListener(ctx context.Context, l net.Listener, h http.Handler, webConfig string, log *slog.Logger) error {
	return ServeOn(ctx, l, h, ServeOptions{WebConfig: webConfig, Logger: log})
}

// ServeOn serves h on an open listener as o says (its Listen and
// SystemdSocket aside) until ctx ends.
func ServeOn(ctx context.Context, l net.Listener, h http.Handler, o ServeOptions) error {
	no := false
	flags := &web.FlagConfig{WebListenAddresses: &[]string{l.Addr().String()}, WebSystemdSocket: &no, WebConfigFile: &o.WebConfig}
	srv := newServer(h, o)
	return run(ctx, srv, func() error { return web.Serve(l, srv, flags, o.logger()) })
}
