package postgres

import (
	"errors"
	"io/fs"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pagecost"
)

// TestPrivateGapsSayTheFallbackOnce: without root every process fails the
// fast path for the same reason; the reason is said once with the count,
// and each process keeps only its own failure.
func TestPrivateGapsSayTheFallbackOnce(t *testing.T) {
	fb := &pagecost.FallbackError{Reason: pagecost.ReasonNotRoot, Path: "/proc/kpagecount", Err: fs.ErrPermission, To: pagecost.MethodSmaps}
	var skipped []pagecost.Skipped
	for _, pid := range []int{11, 12, 13} {
		own := errors.New("read /proc/" + string(rune('0'+pid%10)) + "/smaps_rollup: permission denied")
		skipped = append(skipped, pagecost.Skipped{PID: pid, Err: errors.Join(own, fb)})
	}
	in := &Instance{}
	in.privateGaps(nil, skipped, 0)
	var once, per int
	for _, g := range in.Gaps {
		if strings.Contains(g.Why, "exact fast path") {
			once++
			if g.What != "private cost of 3 processes" {
				t.Errorf("fallback gap %q, want it counted over 3 processes", g.What)
			}
		} else if strings.HasPrefix(g.What, "private cost of process ") {
			per++
			if strings.Contains(g.Why, "\n") {
				t.Errorf("gap %q still holds several lines", g.Why)
			}
		}
	}
	if once != 1 || per != 3 {
		t.Errorf("gaps %+v: want the fallback once and 3 per-process failures", in.Gaps)
	}
}
