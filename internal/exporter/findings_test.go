package exporter

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

func gather(t *testing.T, c prometheus.Collector) map[string][]*dto.Metric {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]*dto.Metric{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf.GetMetric()
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// Every finding of the diagnose engine becomes one dbmem_finding series,
// and dbmem_findings counts them by severity.
func TestFindingsGauge(t *testing.T) {
	check := advise.Checker(advise.Options{})
	e := fixtureExporter(t, "pg15-hugepages-off", check)
	got := gather(t, e)

	ref := fixtureExporter(t, "pg15-hugepages-off", check)
	s, err := ref.o.Sampler.Sample(context.Background(), sampler.Status)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Findings) == 0 {
		t.Fatal("the engine found nothing on the fixture; the test needs findings")
	}
	want := map[string]bool{}
	counts := map[string]float64{}
	for _, f := range s.Findings {
		want[f.ID+"|"+f.Severity.String()+"|"+f.Subject] = true
		counts[f.Severity.String()]++
	}
	have := map[string]bool{}
	for _, m := range got["dbmem_finding"] {
		if m.GetGauge().GetValue() != 1 {
			t.Errorf("finding %v has value %v, want 1", m.GetLabel(), m.GetGauge().GetValue())
		}
		have[label(m, "id")+"|"+label(m, "severity")+"|"+label(m, "subject")] = true
	}
	for k := range want {
		if !have[k] {
			t.Errorf("finding %s missing from dbmem_finding", k)
		}
	}
	if len(have) != len(want) {
		t.Errorf("%d dbmem_finding series, engine gave %d distinct findings", len(have), len(want))
	}
	if n := len(got["dbmem_findings"]); n != 4 {
		t.Errorf("dbmem_findings has %d severities, want all 4", n)
	}
	for _, m := range got["dbmem_findings"] {
		if sev := label(m, "severity"); m.GetGauge().GetValue() != counts[sev] {
			t.Errorf("dbmem_findings{severity=%q} = %v, want %v", sev, m.GetGauge().GetValue(), counts[sev])
		}
	}
}

// Without a checker no finding metrics are sent (absent, not "none").
func TestNoCheckerNoFindingMetrics(t *testing.T) {
	got := gather(t, fixtureExporter(t, "pg15-hugepages-on", nil))
	if _, ok := got["dbmem_findings"]; ok {
		t.Error("dbmem_findings sent without a checker")
	}
	if m := got["dbmem_postgres_shared_memory_page_size_bytes"]; len(m) != 1 || m[0].GetGauge().GetValue() != 2<<20 {
		t.Errorf("page size with huge pages: %v, want 2097152", m)
	}
}
