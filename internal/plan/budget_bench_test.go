package plan

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// benchInstance starts a cluster with pg_stat_statements and 20 idle
// backends, and returns it discovered (not connected).
func benchInstance(b *testing.B) (*pgcluster.Cluster, *postgres.Instance) {
	b.Helper()
	c := pgtest.Start(b, map[string]string{"shared_preload_libraries": "pg_stat_statements", "log_temp_files": "0", "max_connections": "40"})
	pgtest.Exec(b, c, "CREATE EXTENSION pg_stat_statements")
	for i := 0; i < 20; i++ {
		conn := pgtest.Connect(b, c)
		if _, err := conn.Exec(context.Background(), "SELECT count(*) FROM pg_class"); err != nil {
			b.Fatal(err)
		}
	}
	return c, discovered(b, c, false)
}

func discovered(b *testing.B, c *pgcluster.Cluster, work bool) *postgres.Instance {
	b.Helper()
	live := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port, Work: work}}
	ins, _, err := postgres.Discover(context.Background(), linux.DefaultFS(), postgres.Options{Live: live})
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range ins {
		if in.PostmasterPID == c.PID {
			return in
		}
	}
	b.Fatal("instance not found")
	return nil
}

// BenchmarkLiveWithoutWork and BenchmarkLiveWithWork: what reading the
// budget's SQL (pg_stat_statements per role, pg_stat_database,
// pg_db_role_setting, the roles, pg_current_logfile) adds to a connection.
func BenchmarkLiveWithoutWork(b *testing.B) { benchLive(b, false) }
func BenchmarkLiveWithWork(b *testing.B)    { benchLive(b, true) }

func benchLive(b *testing.B, work bool) {
	c, in := benchInstance(b)
	conn := postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port, Work: work}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := conn.Live(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMeasureAndBudget: what the budget adds to plan and report once
// connected: the backends' baseline per role, JIT's cost (maps of every
// client backend), the co-hosted processes (status of every process), the
// server log's last 8 MiB full of temporary file lines, and the solve.
func BenchmarkMeasureAndBudget(b *testing.B) {
	c, _ := benchInstance(b)
	in := discovered(b, c, true)
	fillLog(b, c.LogFile, postgres.TempLogMaxBytes)
	r := Request{FS: linux.DefaultFS(), Budget: BudgetOptions{Profile: "web"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		bi := runningBudget(r, in, in.Settings, "bench")
		bi.Host.RAMBytes = 16 << 30
		if res := budget.Postgres(*bi); res.LimitBytes == 0 {
			b.Fatal("no limit")
		}
	}
}

// fillLog appends n bytes of temporary file lines to the server log.
func fillLog(b *testing.B, path string, n int) {
	b.Helper()
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		fmt.Fprintf(&sb, "2026-03-01 10:00:%02d.001 UTC [%d] LOG:  temporary file: path \"base/pgsql_tmp/pgsql_tmp%d.0\", size %d\n", i%60, 1000+i%500, 1000+i%500, 8192*(i%1000+1))
	}
	f, err := os.OpenFile(filepath.Clean(path), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(sb.String()); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSolve: internal/budget alone (pure).
func BenchmarkSolve(b *testing.B) {
	in := budget.PGInput{Major: 16, Host: budget.Host{RAMBytes: 16 << 30, SharedBytes: 4 << 30, CPUs: 8},
		Settings: budget.PGSettings{MaxConnections: 100, WorkMemBytes: 4 << 20, HashMemMultiplier: 2, MaintenanceWorkMemBytes: 64 << 20,
			AutovacuumMaxWorkers: 3, MaxParallelWorkers: 8, MaxParallelWorkersPerGather: 2, TempBuffersBytes: 8 << 20, JIT: true}}
	for i := 0; i < b.N; i++ {
		budget.Postgres(in)
	}
}
