package dblog

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog"
)

// realPair reads the kernel report and the PostgreSQL log of one real
// backend OOM kill, recorded together on this machine.
func realPair(t *testing.T, o oomlog.Options) ([]oomlog.Event, []CrashRestart) {
	t.Helper()
	b, err := os.ReadFile("../oomlog/testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg-iso.txt")
	if err != nil {
		t.Fatal(err)
	}
	events, err := o.Parse(strings.NewReader(string(b)))
	if err != nil || len(events) != 1 {
		t.Fatalf("kernel events %+v (%v)", events, err)
	}
	return events, parsePGFile(t, "postgresql-15-backend-oom-kill-stderr.log").Crashes
}

func TestMatchRealByPID(t *testing.T) {
	events, crashes := realPair(t, oomlog.Options{})
	p := Match(events, crashes, 5*time.Second)
	if len(p) != 1 || p[0].By != ByPID || !p[0].Certain || p[0].Shift != 0 || p[0].Delta <= 0 || p[0].Delta > time.Second {
		t.Errorf("pairs = %+v", p)
	}
}

func TestMatchByTime(t *testing.T) {
	events, crashes := realPair(t, oomlog.Options{})
	crashes[0].KilledPID = new(1) // e.g. a log that names another process
	p := Match(events, crashes, 5*time.Second)
	if len(p) != 1 || p[0].By != ByTime || p[0].Certain {
		t.Errorf("pairs = %+v", p)
	}
	if p := Match(events, crashes, 10*time.Millisecond); len(p) != 0 {
		t.Errorf("outside the tolerance: %+v", p)
	}
}

// The kernel stamps were read in the wrong zone (a CET host whose times were
// taken for UTC): a time match needs a one-hour shift, a PID match still holds.
func TestMatchAcrossZones(t *testing.T) {
	events, crashes := realPair(t, oomlog.Options{})
	events[0].Time.Wall = events[0].Time.Wall.Add(time.Hour)
	p := Match(events, crashes, 5*time.Second)
	if len(p) != 1 || p[0].By != ByPID || p[0].Shift != -time.Hour || p[0].Delta > time.Second {
		t.Errorf("pid pairs = %+v", p)
	}
	crashes[0].KilledPID = new(1)
	p = Match(events, crashes, 5*time.Second)
	if len(p) != 1 || p[0].By != ByShiftedTime || p[0].Certain || p[0].Shift != -time.Hour {
		t.Errorf("shifted pairs = %+v", p)
	}
}

// A PID reused days later is not the same process.
func TestMatchPIDReuseFarApart(t *testing.T) {
	events, crashes := realPair(t, oomlog.Options{})
	events[0].Time.Wall = events[0].Time.Wall.Add(-72 * time.Hour)
	if p := Match(events, crashes, 5*time.Second); len(p) != 0 {
		t.Errorf("pairs = %+v", p)
	}
	events[0].Time = oomlog.Stamp{} // no wall time: only the PID can pair them
	if p := Match(events, crashes, 5*time.Second); len(p) != 1 || p[0].By != ByPID || p[0].Delta != 0 {
		t.Errorf("untimed pairs = %+v", p)
	}
}

// pv reads an optional number in tests; -1 stands for "not in the log".
func pv(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
