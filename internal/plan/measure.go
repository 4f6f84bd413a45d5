package plan

import (
	"context"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/history"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Measure is what a running instance shows the budget: its client
// backends' private cost (overall and per role), the active sessions,
// the parallel and autovacuum workers running, JIT's cost where backends
// compiled, the spills (pg_stat_statements, pg_stat_database, the server
// log's temporary file lines) and, with a `watch --record` file, the peak
// connections it recorded.
func Measure(fs linux.FS, pg *postgres.Instance, historyPath string) *budget.Measured {
	m := &budget.Measured{ActiveFrom: "pg_stat_activity when dbmem connected"}
	if !pg.Connected {
		m.ActiveFrom = "process titles (not connected)"
		m.Gaps = append(m.Gaps, budget.Gap{What: "spills, roles' own settings", Why: "not connected: " + pg.Connection,
			Fix: "let dbmem connect (see docs/connections.md)"})
	}
	on, _ := pg.Settings.Bool("jit")
	measureBackends(m, pg, clientCosts(fs, pg, on), on)
	measureSpills(m, fs, pg)
	if historyPath != "" {
		measureHistory(m, pg, historyPath)
	}
	return m
}

// measureHistory reads the most connections `watch --record` recorded.
func measureHistory(m *budget.Measured, pg *postgres.Instance, path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	h, err := history.Load(ctx, path, time.Time{}, time.Time{})
	if err != nil {
		m.Gaps = append(m.Gaps, budget.Gap{What: "history " + path, Why: err.Error()})
		return
	}
	port := pg.Port
	s, ok := h.Find("connections", history.InstanceLabels(&port, pg.DataDir))
	if !ok || len(s.Points) == 0 {
		m.Gaps = append(m.Gaps, budget.Gap{What: "history " + path, Why: "no connections recorded for this instance"})
		return
	}
	peak := 0
	for _, p := range s.Points {
		peak = max(peak, int(p.Value))
	}
	m.HistoryPeakConnections = &peak
	m.HistoryFrom = fmt.Sprintf("%s, %d samples %s to %s", path, len(s.Points), s.Points[0].At.Format(time.DateTime), s.Points[len(s.Points)-1].At.Format(time.DateTime))
	if a, ok := h.Find("active_sessions", history.InstanceLabels(&port, pg.DataDir)); ok && len(a.Points) > 0 {
		active := 0
		for _, p := range a.Points {
			active = max(active, int(p.Value))
		}
		m.HistoryPeakActive = &active
		m.HistoryActiveFrom = fmt.Sprintf("%s, %d samples of pg_stat_activity", path, len(a.Points))
	}
}
