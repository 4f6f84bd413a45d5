package chart

import (
	"regexp"
	"strings"
	"testing"
)

// Each row gets its line, box and median bar on one scale, labels are
// escaped, and a single value (min = max) still shows.
func TestRanges(t *testing.T) {
	svg := Ranges("cost <by role>", "MiB", "#009E73", []Range{
		{Label: "client <backend>", Value: "13 MiB", Min: 12, Median: 13, P95: 14, Max: 15},
		{Label: "walwriter", Value: "0.5 MiB", Min: 0.5, Median: 0.5, P95: 0.5, Max: 0.5},
	})
	for _, want := range []string{`>cost &lt;by role&gt;</text>`, `>client &lt;backend&gt;</text>`, `>median to 95th percentile</text>`, `>MiB</text>`} {
		if !strings.Contains(svg, want) {
			t.Errorf("lacks %q", want)
		}
	}
	if n := strings.Count(svg, `fill="#009E73"`); n != 3 { // legend + 2 boxes
		t.Errorf("%d boxes, want 3", n)
	}
	for _, w := range regexp.MustCompile(`width="(-[0-9.]+)"`).FindAllString(svg, -1) {
		t.Errorf("negative width %s", w)
	}
}
