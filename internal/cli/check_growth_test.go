package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/watch"
)

// check --history finds steady growth in a recording: a backend growing
// 5 MiB a minute for the last 40 minutes with 1 GiB available is a warning
// (reached in 3h25m); an old recording is a skipped check, not silence.
func TestCheckHistoryGrowth(t *testing.T) {
	path := recordGrowth(t, time.Now())
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "check", "--json", "--history", path)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc checkDoc
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, f := range doc.Findings {
		if f.ID == history.GrowthFindingID && strings.Contains(f.Subject, "backend 77") {
			found = true
			if f.Severity.String() != "warning" || !strings.Contains(f.Title, "+5.0 MiB/min: MemAvailable reached in 3h2") {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no memory.growth finding for backend 77 in %s", out)
	}
	// A recording that stopped a day ago: skipped, and said.
	old := recordGrowth(t, time.Now().Add(-24*time.Hour))
	code, out, _ = run(t, append(fixtureArgs("pg15-hugepages-off"), "check", "--json", "--history", old)...)
	if code != ExitOK || !strings.Contains(out, `"id": "memory.growth"`) || !strings.Contains(out, "no sample in the last") {
		t.Errorf("a stale recording: exit %d\n%s", code, out)
	}
}

// recordGrowth records 40 minutes up to end: backend 77 grows 5 MiB a
// minute, 1 GiB is available.
func recordGrowth(t *testing.T, end time.Time) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "watch.db")
	st, err := history.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	now := end
	port := 5432
	for m := 0; m <= 40; m++ {
		v, avail := uint64(50<<20)+uint64(m)*(5<<20), uint64(1<<30)
		f := watch.Frame{At: now.Add(time.Duration(m-40) * time.Minute), Tick: m + 1, Mode: "status",
			Host:      watch.HostFrame{MemAvailableBytes: &avail},
			Instances: []watch.Instance{{PostmasterPID: 10, Port: &port, DataDir: "/srv/pg"}},
			Backends:  []watch.Backend{{PID: 77, PostmasterPID: 10, Port: &port, Role: "client backend", User: "app", Database: "shop", EstimateBytes: &v}}}
		if err := st.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
