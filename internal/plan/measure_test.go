package plan

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/watch"
)

// TestMeasureHistory: the most connections `watch --record` recorded for
// the instance (not another one's) bound the concurrency; a file without
// the instance is said.
func TestMeasureHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h.db")
	st, err := history.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	port, other := 5432, 5433
	at := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i, n := range []int{12, 40, 25} {
		f := watch.Frame{Schema: "x", At: at.Add(time.Duration(i) * time.Minute), Tick: i, Mode: "status",
			Instances: []watch.Instance{{Port: &port, DataDir: "/d", Connections: n}, {Port: &other, DataDir: "/e", Connections: 90}}}
		if err := st.Add(f); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	m := &budget.Measured{}
	measureHistory(m, &postgres.Instance{Port: port, DataDir: "/d"}, path)
	if m.HistoryPeakConnections == nil || *m.HistoryPeakConnections != 40 || !strings.Contains(m.HistoryFrom, "3 samples") {
		t.Fatalf("peak %v from %q; gaps %+v", m.HistoryPeakConnections, m.HistoryFrom, m.Gaps)
	}
	m = &budget.Measured{}
	measureHistory(m, &postgres.Instance{Port: 6000, DataDir: "/x"}, path)
	if m.HistoryPeakConnections != nil || len(m.Gaps) != 1 {
		t.Fatalf("another instance: %+v", m)
	}
}
