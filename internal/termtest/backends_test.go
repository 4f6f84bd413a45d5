package termtest

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// At 80 columns watch shows BACKENDS, pg_activity's view of every backend
// with its private cost and its query cut to the width; j moves the
// selection to a backend of a test cluster that filled its catalog caches,
// x X-rays it below the table, and every line still fits.
func TestWatchBackendsAndXRayKey(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"jit": "off", "shared_buffers": "32MB"})
	var ddl strings.Builder
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&ddl, "CREATE TABLE t%d (a int PRIMARY KEY);", i)
	}
	pgtest.Exec(t, c, ddl.String())
	conn := pgtest.Connect(t, c)
	marker := "SELECT 'termtest-xray-marker', count(*) FROM pg_class"
	if _, err := conn.Exec(context.Background(), `DO $$ BEGIN FOR i IN 1..500 LOOP EXECUTE format('SELECT * FROM t%s', i); END LOOP; END $$`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), marker); err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(int(conn.PgConn().PID()))
	p := newPane(t, 80, 60)
	startWatch(t, p, fmt.Sprintf("--interval 1s --pg-port %d", c.Port))
	p.waitFor("BACKENDS")
	line := selectPID(t, p, pid)
	if !showsQuery(line, marker) {
		t.Errorf("the selected backend's line lacks its query: %q", line)
	}
	if bad := p.tooWide(p.screen()); len(bad) > 0 {
		t.Errorf("BACKENDS at 80 columns: lines too wide:\n%s", strings.Join(bad, "\n"))
	}
	p.tmux("send-keys", "x")
	screen := p.waitFor("= private cost")
	text := strings.Join(screen, "\n")
	for _, want := range []string{"MEMORY CONTEXTS (X-ray", "pid " + pid, "catalog caches", "CacheMemoryContext"} {
		if !strings.Contains(text, want) {
			t.Errorf("the X-ray lacks %q:\n%s", want, text)
		}
	}
	if bad := p.tooWide(screen); len(bad) > 0 {
		t.Errorf("the X-ray at 80 columns: lines too wide:\n%s", strings.Join(bad, "\n"))
	}
	p.tmux("send-keys", "x") // closes it
	p.waitFor("TOP BY PRIVATE COST")
	p.tmux("send-keys", "q")
	checkRestored(t, p.waitFor("__STTY__"), "0")
}

// selectPID presses j until the selected line ("> PID") is pid's, and
// returns that line.
func selectPID(t *testing.T, p *pane, pid string) string {
	t.Helper()
	for range 300 {
		for _, l := range p.screen() {
			if f := strings.Fields(l); len(f) > 1 && f[0] == ">" && f[1] == pid {
				return l
			}
		}
		before := selectedOn(p.screen())
		p.tmux("send-keys", "j")
		if !p.waitMoved(before) {
			break // j no longer moves: the last backend is selected
		}
	}
	t.Fatalf("backend %s never selected:\n%s", pid, strings.Join(p.screen(), "\n"))
	return ""
}

// showsQuery reports whether line ends with query, or with a cut of it (at
// least "SELECT '" and one more character, then "…"): the query column gets
// what the other columns leave of the width, which depends on their values
// (an estimated "~7.03M" is wider than an exact "7.03M").
func showsQuery(line, query string) bool {
	i := strings.Index(line, "SELECT '")
	if i < 0 {
		return false
	}
	shown := strings.TrimRight(line[i:], " ")
	if cut, ok := strings.CutSuffix(shown, "…"); ok {
		return len(cut) > len("SELECT '") && strings.HasPrefix(query, cut)
	}
	return shown == query
}

// selectedOn is the PID of the selected backend ("> PID ..."), or "".
func selectedOn(screen []string) string {
	for _, l := range screen {
		if f := strings.Fields(l); len(f) > 1 && f[0] == ">" {
			return f[1]
		}
	}
	return ""
}

// waitMoved waits until the selection is no longer on before: a key is
// pressed only after the last one was drawn, so none is still queued when
// the test reads the selection. It reports false after 20 s without a move
// (j on the last backend).
func (p *pane) waitMoved(before string) bool {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if now := selectedOn(p.screen()); now != "" && now != before {
			return true
		}
		time.Sleep(100 * time.Millisecond)
	}
	return false
}
