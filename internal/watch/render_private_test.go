package watch

import (
	"strings"
	"testing"
	"time"
)

// TestPrivateEstimateMarkedBesideExact: at every width, an instance whose
// PRIVATE is an estimate shows "~" while the exact figure of the last
// smaps pass stands beside it under its own header; an exact PRIVATE has
// no mark.
func TestPrivateEstimateMarkedBesideExact(t *testing.T) {
	at := time.Date(2026, 11, 27, 18, 0, 0, 0, time.UTC)
	p1, p2 := 5432, 5433
	est, exact, pss := uint64(167<<20), uint64(120<<20), uint64(121<<20)
	f := Frame{At: at, Instances: []Instance{
		{Port: &p1, DataDir: "/a", PrivateBytes: &est, PssPrivateBytes: &pss, PssAt: &at},
		{Port: &p2, DataDir: "/b", PrivateBytes: &exact, PrivateExact: true, PssPrivateBytes: &exact, PssAt: &at},
	}}
	for _, width := range []int{0, 120, 80, 60} {
		lines := instanceLines(f, width, "")
		var text []string
		for _, l := range lines {
			text = append(text, l.text)
		}
		all := strings.Join(text, "\n")
		if !strings.Contains(all, "~167M") || strings.Contains(all, "~120M") {
			t.Errorf("width %d: the estimate is not marked, or the exact figure is:\n%s", width, all)
		}
		if strings.Contains(all, "121M") && !strings.Contains(all, "PSS PRIVATE") {
			t.Errorf("width %d: the exact Pss figure shows without its header:\n%s", width, all)
		}
		if !strings.Contains(text[0], "~: RssAnon instead of Pss_Anon") {
			t.Errorf("width %d: no legend of ~:\n%s", width, all)
		}
	}
}
