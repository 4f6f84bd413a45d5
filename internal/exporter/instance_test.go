package exporter

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

func TestInstanceLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []instKey
		want [][]string
	}{
		{"distinct instances get no pid", []instKey{{5432, "/var/lib/postgresql/15/main", 10}, {5433, "/srv/pg", 11}},
			[][]string{{"5432", "/var/lib/postgresql/15/main", ""}, {"5433", "/srv/pg", ""}}},
		{"unknown port is absent, not 0", []instKey{{0, "/srv/pg", 10}},
			[][]string{{"", "/srv/pg", ""}}},
		{"non-root: nothing known, the pid tells them apart", []instKey{{0, "", 10}, {0, "", 11}, {5432, "/srv/pg", 12}},
			[][]string{{"", "", "10"}, {"", "", "11"}, {"5432", "/srv/pg", ""}}},
		{"two containers with the same paths", []instKey{{5432, "/var/lib/postgresql/data", 100}, {5432, "/var/lib/postgresql/data", 200}},
			[][]string{{"5432", "/var/lib/postgresql/data", "100"}, {"5432", "/var/lib/postgresql/data", "200"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, instanceLabels(tc.keys)); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
		})
	}
}

// clone copies an instance of a fixture sample with another identity.
func clone(in *postgres.Instance, pid, port int, dataDir string) *postgres.Instance {
	c := *in
	c.PostmasterPID, c.Port, c.DataDir = pid, port, dataDir
	return &c
}

// sampleOf reads a fixture's sample for collect tests.
func sampleOf(t *testing.T, name string) *sampler.Sample {
	t.Helper()
	e := fixtureExporter(t, name, nil)
	s, err := e.o.Sampler.Sample(context.Background(), sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// collected runs collectPostgres on s into a pedantic registry's gather:
// it fails on any duplicate or inconsistent series.
func collected(t *testing.T, s *sampler.Sample) map[string][]map[string]string {
	t.Helper()
	c := collectorFunc(func(ch chan<- prometheus.Metric) {
		out := newSink(ch, slog.New(slog.NewTextHandler(io.Discard, nil)))
		collectPostgres(out, s, smapsResult{}, time.Time{})
	})
	out := map[string][]map[string]string{}
	for name, ms := range gather(t, c) {
		for _, m := range ms {
			l := map[string]string{"value": formatValue(m.GetGauge().GetValue())}
			for _, lp := range m.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			out[name] = append(out[name], l)
		}
	}
	return out
}

// Two postmasters whose port and data directory are unknown (what a
// non-root reader sees) get one series each, told apart by server_pid, and
// the scrape succeeds.
func TestUnknownInstancesDoNotCollide(t *testing.T) {
	s := sampleOf(t, "pg15-hugepages-off")
	in := s.Snapshot.Postgres[0]
	s.Snapshot.Postgres = append(s.Snapshot.Postgres, clone(in, 4001, 0, ""), clone(in, 4002, 0, ""))
	got := collected(t, s)
	info := got["dbmem_postgres_info"]
	if len(info) != 3 {
		t.Fatalf("dbmem_postgres_info: %v, want 3 series", info)
	}
	pids := map[string]bool{}
	for _, l := range info {
		if l["port"] == "0" {
			t.Errorf("unknown port exported as 0: %v", l)
		}
		pids[l["server_pid"]] = true
	}
	if !pids["4001"] || !pids["4002"] || !pids[""] {
		t.Errorf("server_pid values %v, want 4001, 4002 and absent for the known instance", pids)
	}
	for _, l := range got["dbmem_instance_scrape_success"] {
		if l["value"] != "1" {
			t.Errorf("instance %v not collected", l)
		}
	}
}

// An instance whose collector fails (a panic, a series sent twice) is
// marked with dbmem_instance_scrape_success 0; the metrics sent before, and
// every other instance's, are served, and the registry's gather succeeds.
func TestOneInstanceFailsAlone(t *testing.T) {
	var results []bool
	c := collectorFunc(func(ch chan<- prometheus.Metric) {
		out := newSink(ch, slog.New(slog.NewTextHandler(io.Discard, nil)))
		l := []string{"5432", "/a", ""}
		results = []bool{
			out.collectInstance("a", func() { out.gauge(descConnections, 3, l...) }),
			out.collectInstance("panics", func() {
				out.gauge(descConnections, 4, "5433", "/b", "")
				var m map[string]*int
				_ = *m["x"] // nil pointer dereference
			}),
			out.collectInstance("twice", func() {
				out.gauge(descConnections, 5, "5434", "/c", "")
				out.gauge(descConnections, 6, "5434", "/c", "")
			}),
			out.collectInstance("after", func() { out.gauge(descMaxConn, 100, l...) }),
		}
	})
	got := gather(t, c)
	if d := cmp.Diff([]bool{true, false, false, true}, results); d != "" {
		t.Errorf("success per instance (-want +got):\n%s", d)
	}
	if n := len(got["dbmem_postgres_connections"]); n != 3 {
		t.Errorf("%d connection series served, want 3 (/a, /b before its panic, the first /c)", n)
	}
	if n := len(got["dbmem_postgres_max_connections"]); n != 1 {
		t.Errorf("the instance after the failures was not served")
	}
}

type collectorFunc func(chan<- prometheus.Metric)

func (f collectorFunc) Describe(ch chan<- *prometheus.Desc) { prometheus.DescribeByCollect(f, ch) }
func (f collectorFunc) Collect(ch chan<- prometheus.Metric) { f(ch) }

func formatValue(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// dbmem_postgres_long_lived_private_bytes sums by role the processes
// alive for ten minutes or more, and is absent without the boot time.
func TestLongLivedByRole(t *testing.T) {
	s := sampleOf(t, "pg15-hugepages-off")
	in := s.Snapshot.Postgres[0]
	clients := in.ByRole(postgres.RoleClient)
	if len(clients) < 2 {
		t.Fatalf("%d clients in the fixture", len(clients))
	}
	// Boot so that the clients that started first are ten minutes old or
	// more at the sample, the others younger: the boundary falls between
	// two start times.
	var ticks []uint64
	for _, p := range clients {
		ticks = append(ticks, p.StartTicks)
	}
	slices.Sort(ticks)
	k := 0
	for k+1 < len(ticks) && ticks[k+1] == ticks[k] {
		k++
	}
	if k+1 == len(ticks) {
		t.Fatal("every client started at the same tick")
	}
	boundary := (ticks[k] + ticks[k+1]) / 2
	boot := s.Snapshot.TakenAt.Add(-LongLived).Add(-time.Duration(boundary) * time.Second / 100)
	var want uint64
	n := 0
	for _, p := range clients {
		if p.StartTicks <= boundary {
			st := p.Status
			want += *st.RssAnonBytes + *st.VmPTEBytes + *st.VmSwapBytes
			n++
		}
	}
	c := collectorFunc(func(ch chan<- prometheus.Metric) {
		out := newSink(ch, slog.New(slog.NewTextHandler(io.Discard, nil)))
		collectPostgres(out, s, smapsResult{}, boot)
	})
	got := gather(t, c)
	var bytes, procs float64
	for _, m := range got["dbmem_postgres_long_lived_private_bytes"] {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "role" && lp.GetValue() == "client backend" {
				bytes = m.GetGauge().GetValue()
			}
		}
	}
	for _, m := range got["dbmem_postgres_long_lived_processes"] {
		for _, lp := range m.GetLabel() {
			if lp.GetName() == "role" && lp.GetValue() == "client backend" {
				procs = m.GetGauge().GetValue()
			}
		}
	}
	if bytes != float64(want) || int(procs) != n || n >= len(clients) {
		t.Errorf("long-lived clients: %v bytes, %v processes; want %d bytes, %d processes (of %d)", bytes, procs, want, n, len(clients))
	}
	if len(collected(t, s)["dbmem_postgres_long_lived_private_bytes"]) != 0 {
		t.Error("long-lived series sent without the boot time")
	}
}
