package cli

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
)

// TestPlanMySQLBudget budgets a throwaway MariaDB 10.11 that allows 500
// connections after 12 were open at once: the thread's cost is measured
// from /proc, Max_used_connections read, max_connections proposed from them
// (Max_used_connections + 25%, at least + 10) with every connection at full
// buffers within the limit, temporary tables counted per query.
func TestPlanMySQLBudget(t *testing.T) {
	s := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M", "max_connections": "500"})
	t.Setenv("PGHOST", t.TempDir())
	t.Setenv("PGPORT", "")
	holdConnections(t, s.DB(t), 12)
	code, out, stderr := run(t, "--mysql-port", fmt.Sprint(s.Port), "--json", "plan")
	var doc struct {
		Budget struct {
			Engine      string `json:"engine"`
			Measured    bool   `json:"measured"`
			LimitBytes  uint64 `json:"limit_bytes"`
			TotalBytes  uint64 `json:"total_bytes"`
			Concurrency int    `json:"concurrency"`
			Lines       []struct {
				Name    string `json:"name"`
				Formula string `json:"formula"`
				Bytes   uint64 `json:"bytes"`
			} `json:"lines"`
			Settings []struct {
				Name, Value, Current string
			} `json:"settings"`
			Peers []struct{ Tool string } `json:"peers"`
			Gaps  []struct{ What string } `json:"gaps"`
		} `json:"budget"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil {
		t.Fatalf("plan --json: exit %d: %s\n%s", code, stderr, out)
	}
	b := doc.Budget
	if b.Engine != "mariadb" || !b.Measured || len(b.Settings) != 1 || len(b.Peers) != 1 || b.Peers[0].Tool != "mysqltuner" {
		t.Fatalf("budget %+v", b)
	}
	for _, g := range b.Gaps {
		if g.What == "per-thread cost" || g.What == "Max_used_connections" {
			t.Errorf("not measured: %s", g.What)
		}
	}
	used := b.Concurrency // Max_used_connections: the 12 held and dbmem's own
	want := strconv.Itoa(max(int(math.Ceil(float64(used)*1.25)), used+10))
	if set := b.Settings[0]; used < 12 || set.Name != "max_connections" || set.Current != "500" || set.Value != want {
		t.Errorf("max_connections %+v, want %s from Max_used_connections %d", set, want, used)
	}
	for _, l := range b.Lines {
		if l.Name == "threads" && !strings.Contains(l.Formula, "measured") || l.Name == "in-memory temporary tables" && l.Bytes != uint64(used)*16<<20 {
			t.Errorf("line %+v", l)
		}
	}
	if b.TotalBytes > b.LimitBytes {
		t.Errorf("total %d over the limit %d", b.TotalBytes, b.LimitBytes)
	}
	t.Logf("budget: %d of %d bytes, Max_used_connections %d, max_connections %s", b.TotalBytes, b.LimitBytes, used, want)
	code, out, stderr = run(t, "--mysql-port", fmt.Sprint(s.Port), "plan")
	flat := squeeze(out)
	for _, w := range []string{"BUDGET  mariadb 10.11 :", "Max_used_connections (SHOW GLOBAL STATUS)", "one table per query, not per thread",
		"mysql  max_connections  " + want + "  500", "MYSQLTUNER"} {
		if code != ExitOK || !strings.Contains(flat, squeeze(w)) {
			t.Errorf("plan (exit %d, %s) lacks %q:\n%s", code, stderr, w, out)
		}
	}
	t.Log("\n" + out)
}

// holdConnections opens n connections at once and keeps them until the
// test ends: Max_used_connections counts them.
func holdConnections(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	db.SetMaxOpenConns(n + 1)
	for i := 0; i < n; i++ {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(context.Background(), "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
}
