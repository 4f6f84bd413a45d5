package history

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

const inst = "port=5432 data_dir=/var/lib/postgresql/15/main"

// history of two ticks a minute apart, one series with a single sample,
// a host finding and an instance finding.
func twoTicks() *History {
	t0 := time.Date(2026, 11, 25, 14, 5, 3, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	return &History{
		Path: "watch.db", From: t0, To: t1, Samples: 2,
		Series: []Series{
			{Name: "mem_available_bytes", Unit: UnitBytes, Points: []TimePoint{{t0, 20 << 30}, {t1, 19 << 30}}},
			{Name: "pss_private_bytes", Labels: inst, Unit: UnitBytes, Points: []TimePoint{{t1, 300 << 20}}},
		},
		Findings: []FindingSpan{
			{ID: "overcommit.mode", Subject: "host", Severity: "notice", Title: "heuristic <overcommit>", First: t0, Last: t1, Ticks: 2},
			{ID: "hugepages.fallback", Subject: "postgresql 15 :5432 (/var/lib/postgresql/15/main)", Severity: "warning", Title: "fell back", First: t1, Last: t1, Ticks: 1},
		},
	}
}

// Each chart is titled on both axes, its x labels are distinct (the old
// page printed "14:05" seven times for two minutes), a series of one sample
// shows as a dot, and each finding is shaded on the charts it is about.
func TestHTMLChartsMarkFindings(t *testing.T) {
	var out bytes.Buffer
	if err := HTML(&out, twoTicks()); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	svgs := regexp.MustCompile(`(?s)<h2>([^<]*)</h2>.*?(<svg.*?</svg>)`).FindAllStringSubmatch(page, -1)
	if len(svgs) != 2 {
		t.Fatalf("%d charts, want 2 (memory available, the instance's private memory)", len(svgs))
	}
	for _, c := range svgs {
		title, svg := c[1], c[2]
		if !strings.Contains(svg, ">time (UTC)</text>") || !strings.Contains(svg, ">bytes</text>") {
			t.Errorf("%s: an axis has no title", title)
		}
		labels := regexp.MustCompile(`class="tick"[^>]*>(\d\d:\d\d(:\d\d)?)</text>`).FindAllStringSubmatch(svg, -1)
		seen := map[string]bool{}
		for _, l := range labels {
			if seen[l[1]] {
				t.Errorf("%s: x label %s twice", title, l[1])
			}
			seen[l[1]] = true
		}
		if len(labels) < 2 {
			t.Errorf("%s: %d x labels", title, len(labels))
		}
	}
	host, instance := svgs[0][2], svgs[1][2]
	if !strings.Contains(host, "<title>1. NOTICE overcommit.mode: host: heuristic &lt;overcommit&gt;</title>") || strings.Contains(host, "hugepages.fallback") {
		t.Errorf("the host chart must mark finding 1 only:\n%s", host)
	}
	if !strings.Contains(instance, "2. WARNING hugepages.fallback") || strings.Contains(instance, "overcommit.mode") {
		t.Errorf("the instance chart must mark finding 2 only:\n%s", instance)
	}
	if !strings.Contains(instance, "<circle") {
		t.Error("the one-sample series is not drawn")
	}
	if !strings.Contains(page, `<td class="num">2</td>`) {
		t.Error("the findings table does not number the findings")
	}
}
