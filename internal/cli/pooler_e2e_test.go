package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/pooler/bouncertest"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// TestReportShowsPoolers: the built binary's report, report --json, a
// capture read back with --from, and pooler set/rollback, against a real
// PgBouncer in front of a throwaway cluster, with two clients holding
// transactions through it.
func TestReportShowsPoolers(t *testing.T) {
	binaries(t) // built once; skips unless root
	c := pgtest.Start(t, nil)
	dest := fmt.Sprintf("host=%s port=%d dbname=postgres", c.SocketDir, c.Port)
	b := bouncertest.Start(t, bouncertest.Options{
		Databases:     []string{"app = " + dest + " user=postgres password=hunter2-not-shown pool_size=5 reserve_pool=2", "batch = " + dest + " pool_mode=session max_db_connections=3"},
		Settings:      []string{"pool_mode = transaction", "reserve_pool_timeout = 2"},
		WorldReadable: true, // nobody finds the socket from the file (it may not list PgBouncer's fds)
	})
	for i := 0; i < 2; i++ {
		holdTransaction(t, b)
	}
	env := []string{"PATH=/usr/bin:/bin"}
	head := fmt.Sprintf("To PostgreSQL postmaster %d, port %d: at most 10 server connections (session 3, transaction 7)", c.PID, c.Port)
	code, out, _ := runAs(t, nil, env, "report")
	if code != 0 || !strings.Contains(out, head) || !strings.Contains(out, "Measured     2 server connections open (2 active)") ||
		!strings.Contains(out, fmt.Sprintf("pgbouncer %d (postgres)", b.PID)) || strings.Contains(out, "hunter2") {
		t.Fatalf("report (exit %d):\n%s", code, section(out))
	}
	_, js, _ := runAs(t, nil, env, "report", "--json")
	var doc struct {
		PoolerLimits []struct {
			PostmasterPID int `json:"postmaster_pid"`
			Max           int
			Known         bool
			Measured      struct{ Servers int }
		} `json:"pooler_limits"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range doc.PoolerLimits {
		found = found || l.PostmasterPID == c.PID && l.Max == 10 && l.Known && l.Measured.Servers == 2
	}
	if !found || strings.Contains(js, "hunter2") {
		t.Errorf("report --json pooler_limits %+v", doc.PoolerLimits)
	}
	bundle := filepath.Join(t.TempDir(), "capture.tar.gz")
	if code, _, errs := runAs(t, nil, env, "capture", "-o", bundle); code != 0 {
		t.Fatalf("capture: %s", errs)
	}
	if code, out, _ := runAs(t, nil, env, "report", "--from", bundle); code != 0 || !strings.Contains(out, head) ||
		!strings.Contains(out, "(at capture time)") || !strings.Contains(out, "Measured     2 server connections open") {
		t.Errorf("report --from (exit %d):\n%s", code, section(out))
	}
	asOtherAccounts(t, env, b)
	setAndRollBack(t, env, b)
}

// asOtherAccounts: run as the pooler's own account, dbmem reads the
// console directly as pgbouncer; as nobody (not in stats_users, auth_type
// trust lets no unknown user in) it says what to grant.
func asOtherAccounts(t *testing.T, env []string, b *bouncertest.Bouncer) {
	pg, err := throwaway.Credential("postgres")
	if err != nil {
		t.Fatal(err)
	}
	_, out, _ := runAs(t, pg, env, "report")
	if !strings.Contains(flat(out), "connected as pgbouncer (dbmem runs as the pooler's account postgres) via "+b.Socket()) {
		t.Errorf("report as postgres:\n%s", section(out))
	}
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	_, out, _ = runAs(t, nobody, env, "report")
	ours := block(flat(out), fmt.Sprintf("pgbouncer %d (postgres) %s", b.PID, b.Ini))
	if !strings.Contains(ours, "as nobody without a password") || !strings.Contains(ours, "stats_users = nobody") {
		t.Errorf("report as nobody:\n%s", section(out))
	}
}

// setAndRollBack changes app's pool through the binary, sees the report
// follow, and rolls back.
func setAndRollBack(t *testing.T, env []string, b *bouncertest.Bouncer) {
	journal := t.TempDir()
	pid := fmt.Sprint(b.PID)
	before, _ := os.ReadFile(b.Ini)
	code, out, errs := runAs(t, nil, env, "pooler", "set", "--pid", pid, "--journal-dir", journal, "app.pool_size=3")
	if code != 0 || !strings.Contains(out, "-app = ") || !strings.Contains(out, "pool_size=3") || strings.Contains(out, "hunter2") {
		t.Fatalf("pooler set dry run (exit %d): %s%s", code, out, errs)
	}
	if code, out, errs = runAs(t, nil, env, "pooler", "set", "--pid", pid, "--journal-dir", journal, "app.pool_size=3", "--yes"); code != 0 ||
		!strings.Contains(out, "RELOAD: pgbouncer "+pid) {
		t.Fatalf("pooler set --yes (exit %d): %s%s", code, out, errs)
	}
	if _, out, _ := runAs(t, nil, env, "report"); !strings.Contains(out, "at most 8 server connections") {
		t.Errorf("report after set:\n%s", section(out))
	}
	if code, out, errs = runAs(t, nil, env, "pooler", "rollback", "--pid", pid, "--journal-dir", journal, "--yes"); code != 0 {
		t.Fatalf("pooler rollback (exit %d): %s%s", code, out, errs)
	}
	if after, _ := os.ReadFile(b.Ini); string(after) != string(before) {
		t.Errorf("pgbouncer.ini after rollback:\n%s", after)
	}
}

// holdTransaction opens a client through PgBouncer's app database that
// holds a server connection until the test ends.
func holdTransaction(t *testing.T, b *bouncertest.Bouncer) {
	t.Helper()
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d user=postgres dbname=app sslmode=disable default_query_exec_mode=simple_protocol", b.Dir, b.Port))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect through pgbouncer: %v\n%s", err, b.Log())
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	if _, err := conn.Exec(ctx, "BEGIN; SELECT 1"); err != nil {
		t.Fatal(err)
	}
}

var poolersSection = regexp.MustCompile(`(?s)POOLERS.*?\n\n`)

// section is the POOLERS section of a report (all of it when absent).
func section(out string) string {
	if s := poolersSection.FindString(out); s != "" {
		return s
	}
	return out
}

// flat joins a report's wrapped lines.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// block is the text of one pooler in a flat report: from its header to
// the next pooler's or the first limit.
func block(s, header string) string {
	i := strings.Index(s, header)
	if i < 0 {
		return ""
	}
	s = s[i+len(header):]
	if loc := nextBlock.FindStringIndex(s); loc != nil {
		s = s[:loc[0]]
	}
	return s
}

var nextBlock = regexp.MustCompile(` (?:pgbouncer|pgcat|odyssey) \d+ \(| To PostgreSQL `)
