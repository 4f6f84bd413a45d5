package exporter

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbmem/dbmem/internal/inert"
)

// sink sends one scrape's metrics. A metric that cannot be made, or that
// repeats a series already sent, is dropped and logged, and counts as a
// failure of the instance being collected: one odd instance never makes
// the registry fail the whole scrape.
type sink struct {
	ch   chan<- prometheus.Metric
	log  *slog.Logger
	seen map[string]bool
	// failed is set by a dropped metric; collectInstance resets it for
	// each instance.
	failed bool
}

func newSink(ch chan<- prometheus.Metric, log *slog.Logger) *sink {
	return &sink{ch: ch, log: log, seen: map[string]bool{}}
}

// gauge sends a sample. Label values such as a process name come from
// other users: inert.Text makes them valid UTF-8 without control
// characters.
func (s *sink) gauge(d *prometheus.Desc, v float64, labels ...string) {
	s.send(d, prometheus.GaugeValue, v, labels...)
}

func (s *sink) counter(d *prometheus.Desc, v float64, labels ...string) {
	s.send(d, prometheus.CounterValue, v, labels...)
}

func (s *sink) send(d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	vals := make([]string, len(labels))
	for i, l := range labels {
		vals[i] = inert.Text(l)
	}
	key := d.String() + "\x00" + strings.Join(vals, "\x00")
	if s.seen[key] {
		s.drop(d, fmt.Errorf("series sent twice with labels %q", vals))
		return
	}
	m, err := prometheus.NewConstMetric(d, t, v, vals...)
	if err != nil {
		s.drop(d, err)
		return
	}
	s.seen[key] = true
	s.ch <- m
}

func (s *sink) drop(d *prometheus.Desc, err error) {
	s.failed = true
	s.log.Error("metric dropped", "desc", d.String(), "err", err)
}

// collectInstance runs one instance's collector, recovering from a panic,
// and returns whether all its metrics were sent.
func (s *sink) collectInstance(what string, f func()) (ok bool) {
	s.failed = false
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("instance collector failed: its metrics are left out of this scrape", "instance", what, "panic", fmt.Sprint(r))
			ok = false
		}
	}()
	f()
	return !s.failed
}

// instKey is what tells instances of one engine apart.
type instKey struct {
	port    int // 0: unknown
	dataDir string
	pid     int // postmaster or server process
}

// instanceLabels returns each instance's label values: port (empty, that
// is absent, when unknown: never 0 nor a guessed default), data_dir (empty
// when unknown) and server_pid, which is set only for instances whose port
// and data_dir do not tell them apart from another one (both unknown to a
// non-root reader, or two containers with the same paths). A pid changes
// at every restart, so it is used only where nothing stable is known.
func instanceLabels(keys []instKey) [][]string {
	n := map[[2]string]int{}
	out := make([][]string, len(keys))
	for i, k := range keys {
		out[i] = []string{portLabel(k.port), k.dataDir, ""}
		n[[2]string{out[i][0], out[i][1]}]++
	}
	for i, k := range keys {
		if n[[2]string{out[i][0], out[i][1]}] > 1 {
			out[i][2] = strconv.Itoa(k.pid)
		}
	}
	return out
}

// portLabel is the port label: empty (absent) when the port is unknown,
// never 0 nor a guessed default.
func portLabel(port int) string {
	if port <= 0 {
		return ""
	}
	return strconv.Itoa(port)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
