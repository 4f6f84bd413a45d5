package budget

import (
	"strings"
	"testing"
)

// TestConcurrencyRecordedActivePeak: the peak of active sessions a
// `watch --record` history saw raises the concurrency above twice the
// sessions active now, and says where it comes from; a lower peak changes
// nothing.
func TestConcurrencyRecordedActivePeak(t *testing.T) {
	peak, low := 9, 1
	m := &Measured{ActiveNow: 1, ActiveFrom: "now", HistoryPeakActive: &peak, HistoryActiveFrom: "h.db, 40 samples of pg_stat_activity"}
	n, why := measuredConcurrency(m, 2)
	if n != 9 || !strings.Contains(why, "at least the peak of 9 active sessions recorded (h.db, 40 samples of pg_stat_activity)") {
		t.Errorf("concurrency %d (%s), want 9 from the history", n, why)
	}
	m.HistoryPeakActive = &low
	if n, why := measuredConcurrency(m, 2); n != 2 || strings.Contains(why, "recorded") {
		t.Errorf("a lower peak: concurrency %d (%s), want 2 (the CPUs)", n, why)
	}
}
