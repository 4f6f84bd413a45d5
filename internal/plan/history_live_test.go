package plan

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/watch"
)

// TestHistoryRecordsActiveSessions: on a real cluster, 3 sessions run a
// query (pg_sleep) while 2 stay idle; watch's sampler and recorder (what
// `dbmem watch --record` runs) record a few ticks into a real history
// file. plan's measure reads the peak of 3 active sessions from it
// (budget's TestConcurrencyRecordedActivePeak: the concurrency is at least
// that peak).
func TestHistoryRecordsActiveSessions(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"max_connections": "20"})
	idleBackends(t, c, 2)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	for i := 0; i < 3; i++ {
		conn := pgtest.Connect(t, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn.Exec(ctx, "SELECT pg_sleep(60)", pgx.QueryExecModeSimpleProtocol) // ends with ctx
		}()
	}
	conn := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}
	s := &sampler.Sampler{FS: linux.DefaultFS(), Live: conn, Backends: conn}
	path := filepath.Join(t.TempDir(), "history.db")
	st, err := history.Open(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var w watch.Watcher
	deadline := time.Now().Add(2 * time.Minute)
	for ticks, recorded := 0, 0; ticks < 3 || recorded < 3; ticks++ {
		if time.Now().After(deadline) {
			t.Fatalf("after %d ticks, %d recorded 3 active sessions", ticks, recorded)
		}
		smp, err := s.Sample(context.Background(), sampler.Status)
		if err != nil {
			t.Fatal(err)
		}
		f := w.Frame(smp)
		for _, in := range f.Instances {
			if in.PostmasterPID == c.PID && in.ActiveSessions != nil && *in.ActiveSessions == 3 {
				recorded++
			}
		}
		if err := st.Add(f); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	st.Close()
	m := &budget.Measured{}
	measureHistory(m, &postgres.Instance{Port: c.Port, DataDir: c.DataDir}, path)
	if m.HistoryPeakActive == nil || *m.HistoryPeakActive != 3 || !strings.Contains(m.HistoryActiveFrom, path) {
		t.Fatalf("peak active %v from %q (gaps %+v)", m.HistoryPeakActive, m.HistoryActiveFrom, m.Gaps)
	}
}
