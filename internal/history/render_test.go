package history

import (
	"bytes"
	"context"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestSparkline(t *testing.T) {
	pts := func(vs ...float64) []TimePoint {
		var out []TimePoint
		for i, v := range vs {
			out = append(out, TimePoint{t0.Add(time.Duration(i) * time.Second), v})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		ps    []TimePoint
		width int
		want  string
	}{
		{"rising", pts(0, 1, 2, 3, 4, 5, 6, 7), 8, "▁▂▃▄▅▆▇█"},
		{"flat", pts(5, 5, 5), 3, "▁▁▁"},
		{"means of two per column", pts(0, 0, 7, 7), 2, "▁█"},
		{"gap is a space", []TimePoint{{t0, 1}, {t0.Add(3 * time.Second), 2}}, 4, "▁  █"},
		{"none", nil, 5, ""},
	} {
		if got := Sparkline(tc.ps, tc.width); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if s := StatsOf(pts(3, 1, 2)); s.Min != 1 || s.Max != 3 || s.Mean != 2 || s.Last != 2 {
		t.Errorf("stats %+v", s)
	}
	if b := Buckets(pts(1, 2), 4); !math.IsNaN(b[1]) || b[0] != 1 || b[3] != 2 {
		t.Errorf("buckets %v", b)
	}
}

func loaded(t *testing.T) *History {
	t.Helper()
	s, path := openTemp(t, 0)
	for i := 0; i < 30; i++ {
		if err := s.Add(frame(i)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := Load(context.Background(), path, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestText(t *testing.T) {
	var out bytes.Buffer
	if err := Text(&out, loaded(t), TextOptions{Width: 10}); err != nil {
		t.Fatal(err)
	}
	s := strings.Join(strings.Fields(out.String()), " ")
	for _, want := range []string{
		"30 samples", "status ticks 30 CPU avg 1.0 ms",
		"MemAvailable 3.97G 3.99G 4G 3.97G █▇▆▅▄▄▃▂▁▁",
		"Huge pages in use (2 MiB pages) 0 14.5 29 29 ▁▁▂▃▄▄▅▆▇█",
		"POSTGRESQL port=5432 data_dir=/var/lib/postgresql/15/main",
		"Connections 0 14.5 29 29 ▁▁▂▃▄▄▅▆▇█",
		"FINDINGS none recorded",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	var out bytes.Buffer
	if err := HTML(&out, loaded(t)); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if n := strings.Count(s, "<svg"); n != 8 {
		t.Errorf("%d charts, want 8: memory, commit, page tables, swap in/out, swap used, huge pages, and the instance's private memory and connections", n)
	}
	for _, want := range []string{"<h2>Memory available</h2>", "<h2>Private memory: port=5432 data_dir=/var/lib/postgresql/15/main</h2>", "<polyline"} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	// Nothing is fetched: the only URL is the SVG namespace.
	for _, m := range regexp.MustCompile(`(?i)(https?:|src=|href=|<script|@import)[^"' >]*`).FindAllString(s, -1) {
		if m != "http://www.w3.org/2000/svg" {
			t.Errorf("external reference %q", m)
		}
	}
}
