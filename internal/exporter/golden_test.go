package exporter

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	"github.com/prometheus/common/expfmt"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

var update = flag.Bool("update", false, "rewrite the golden exposition files under testdata")

// volatile are the metrics whose values depend on how fast this machine
// reads: they are checked for presence, not value.
var volatile = map[string]bool{
	"dbmem_scrape_collector_duration_seconds": true, "dbmem_scrape_collector_cpu_seconds": true,
	"dbmem_smaps_duration_seconds": true, "dbmem_smaps_cpu_seconds": true, "dbmem_smaps_last_success_timestamp_seconds": true,
	"dbmem_build_info": true, // the toolchain's version
}

func fixtureExporter(t testing.TB, name string, check sampler.Checker) *Exporter {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := &sampler.Sampler{FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}, Check: check, Now: func() time.Time { return at }}
	return New(Options{Sampler: s, Top: 3})
}

// stableNames lists the metric names the exporter sent, volatile ones
// left out.
func stableNames(t *testing.T, c prometheus.Collector) []string {
	t.Helper()
	var names []string
	for name := range gather(t, c) {
		if !volatile[name] {
			names = append(names, name)
		}
	}
	return names
}

func TestGoldenExposition(t *testing.T) {
	for _, name := range []string{"pg15-hugepages-off", "pg15-hugepages-on"} {
		t.Run(name, func(t *testing.T) {
			e := fixtureExporter(t, name, nil)
			if err := e.RefreshSmaps(context.Background()); err != nil {
				t.Fatal(err)
			}
			got, err := testutil.CollectAndFormat(e, expfmt.TypeTextPlain, stableNames(t, e)...)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", name+".prom")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if d := cmp.Diff(string(want), string(got)); d != "" {
				t.Errorf("exposition differs from %s (-want +got):\n%s", golden, d)
			}
		})
	}
}

func TestLint(t *testing.T) {
	e := fixtureExporter(t, "pg15-hugepages-off", nil)
	e.RefreshSmaps(context.Background())
	out, err := testutil.CollectAndFormat(e, expfmt.TypeTextPlain)
	if err != nil {
		t.Fatal(err)
	}
	problems, err := promlint.New(strings.NewReader(string(out))).Lint()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
}
