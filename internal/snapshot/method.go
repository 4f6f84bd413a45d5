package snapshot

import (
	"cmp"

	"github.com/dbmem/dbmem/internal/measure"
)

// resolveMethod turns Options into the method used. "" reads status. A
// snapshot that is
// recorded (a Tap) or replayed (roots other than the live host's) cannot
// use the fast path: pagemap and /proc/kpagecount describe one moment of a
// live kernel and are not recorded. There auto reads smaps_rollup (which a
// capture records and a replay reads back) and fast reads status.
func resolveMethod(o Options) measure.Method {
	m := o.Method
	m = cmp.Or(m, measure.Status)
	if o.FS.Tap == nil && o.FS.IsLive() {
		return m
	}
	switch m {
	case measure.Auto:
		return measure.Smaps
	case measure.Fast:
		return measure.Status
	}
	return m
}
