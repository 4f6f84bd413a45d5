package history

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/watch"
)

var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

// frame is a synthetic tick: available memory falls 1 MiB per tick, one
// instance with i connections.
func frame(i int, fs ...finding.Finding) watch.Frame {
	f := watch.Frame{
		At: t0.Add(time.Duration(i) * 10 * time.Second), Tick: i + 1, Mode: "status",
		Cost: sampler.Cost{CPU: time.Millisecond, Wall: 2 * time.Millisecond},
		Host: watch.HostFrame{MemTotalBytes: new(uint64(8 << 30)), MemAvailableBytes: new(uint64(4<<30 - i<<20)), Rates: i > 0, SwapInPerSec: float64(i),
			PageTablesBytes: new(uint64(8 << 20)), CommittedASBytes: new(uint64(2 << 30)), CommitLimitBytes: new(uint64(4 << 30)), SwapUsedBytes: new(uint64(0)),
			HugePages: []watch.HugePages{{PageSizeBytes: 2 << 20, Total: 100, InUse: uint64(i)}}},
		Instances: []watch.Instance{{Port: new(5432), DataDir: "/var/lib/postgresql/15/main", Connections: i, EstimateBytes: new(uint64(i) << 20)}},
	}
	for _, fd := range fs {
		f.Findings = append(f.Findings, watch.FindingSeen{Finding: fd})
	}
	return f
}

func openTemp(t *testing.T, retention time.Duration) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "watch.db")
	s, err := Open(path, retention)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

func TestRecordAndLoad(t *testing.T) {
	s, path := openTemp(t, 0)
	warn := finding.Finding{ID: "pagetables.projected", Severity: finding.Warning, Subject: "postgresql 15 :5432", Title: "page tables"}
	for i := 0; i < 6; i++ {
		var fs []finding.Finding
		if i >= 2 && i <= 4 {
			fs = append(fs, warn)
		}
		if err := s.Add(frame(i, fs...)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := Load(context.Background(), path, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Samples != 6 || !h.From.Equal(t0) || !h.To.Equal(t0.Add(50*time.Second)) {
		t.Errorf("samples %d from %v to %v: want 6 over 50 s from %v", h.Samples, h.From, h.To, t0)
	}
	avail, ok := h.Find("mem_available_bytes", "")
	if !ok || len(avail.Points) != 6 || avail.Points[5].Value != float64(4<<30-5<<20) {
		t.Errorf("mem_available_bytes: %+v", avail)
	}
	conns, ok := h.Find("connections", InstanceLabels(new(5432), "/var/lib/postgresql/15/main"))
	if !ok || len(conns.Points) != 6 || conns.Points[3].Value != 3 || conns.Unit != UnitCount {
		t.Errorf("connections: %+v", conns)
	}
	if in, ok := h.Find("swap_in_pages_per_sec", ""); !ok || len(in.Points) != 5 {
		t.Errorf("swap in: %+v, want 5 points (no rate on the first tick)", in)
	}
	if len(h.Findings) != 1 || h.Findings[0].Ticks != 3 || !h.Findings[0].First.Equal(t0.Add(20*time.Second)) ||
		!h.Findings[0].Last.Equal(t0.Add(40*time.Second)) || h.Findings[0].Severity != "warning" {
		t.Errorf("findings %+v: want one warning seen on 3 ticks from +20 s to +40 s", h.Findings)
	}
	if len(h.Costs) != 1 || h.Costs[0].Ticks != 6 || h.Costs[0].AvgCPU != time.Millisecond {
		t.Errorf("costs %+v", h.Costs)
	}
	part, err := Load(context.Background(), path, t0.Add(15*time.Second), t0.Add(35*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if part.Samples != 2 || len(part.Findings) != 1 {
		t.Errorf("range +15..+35 s: %d samples (want 2), %d findings (want 1)", part.Samples, len(part.Findings))
	}
}

func TestRetention(t *testing.T) {
	s, path := openTemp(t, 25*time.Second)
	old := finding.Finding{ID: "old", Subject: "host"}
	for i := 0; i < 6; i++ {
		var fs []finding.Finding
		if i == 0 {
			fs = append(fs, old)
		}
		if err := s.Add(frame(i, fs...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Prune(t0.Add(50 * time.Second)); err != nil {
		t.Fatal(err)
	}
	// A tick after pruning must still find (or recreate) its series.
	if err := s.Add(frame(6)); err != nil {
		t.Fatal(err)
	}
	h, err := Load(context.Background(), path, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if h.Samples != 4 || !h.From.Equal(t0.Add(30*time.Second)) || len(h.Findings) != 0 {
		t.Errorf("after retention of 25 s at +50 s: %d samples from %v, findings %v; want 4 from +30 s, none",
			h.Samples, h.From, h.Findings)
	}
	if a, _ := h.Find("mem_available_bytes", ""); len(a.Points) != 4 {
		t.Errorf("mem_available_bytes has %d points, want 4", len(a.Points))
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.db")
	os.WriteFile(junk, []byte(strings.Repeat("not sqlite ", 200)), 0o644)
	if _, err := Open(junk, 0); err == nil || !strings.Contains(err.Error(), junk) {
		t.Errorf("open a non-SQLite file: %v, want an error naming it", err)
	}
	if _, err := Load(context.Background(), filepath.Join(dir, "missing.db"), time.Time{}, time.Time{}); err == nil || !strings.Contains(err.Error(), "missing.db") {
		t.Errorf("load a missing file: %v, want an error naming it", err)
	}
	s, path := openTemp(t, 0)
	s.db.Exec(`UPDATE meta SET value = 'dbmem.history/v0' WHERE key = 'schema'`)
	s.Close()
	if _, err := Open(path, 0); err == nil || !strings.Contains(err.Error(), "dbmem.history/v0") {
		t.Errorf("open a file of another schema: %v, want an error naming it", err)
	}
}

// A reader can load the file while the recorder has it open (WAL).
func TestLoadWhileRecording(t *testing.T) {
	s, path := openTemp(t, 0)
	for i := 0; i < 3; i++ {
		if err := s.Add(frame(i)); err != nil {
			t.Fatal(err)
		}
		h, err := Load(context.Background(), path, time.Time{}, time.Time{})
		if err != nil || h.Samples != i+1 {
			t.Fatalf("load while recording, after %d ticks: %v, %d samples", i+1, err, h.Samples)
		}
	}
}

// TestUnknownIsNoPoint: a number the frame does not have (a kernel or a
// copy without the line) gets no point, never a 0; an estimated
// MemAvailable goes to its own series.
func TestUnknownIsNoPoint(t *testing.T) {
	f := watch.Frame{Host: watch.HostFrame{MemTotalBytes: new(uint64(8 << 30)), MemAvailableBytes: new(uint64(1 << 30)), MemAvailableEstimated: true},
		Instances: []watch.Instance{{Port: new(5432), DataDir: "/d"}}}
	got := map[string]float64{}
	for _, p := range PointsOf(f) {
		got[p.Name] = p.Value
	}
	for _, absent := range []string{"mem_available_bytes", "page_tables_bytes", "committed_as_bytes", "commit_limit_bytes",
		"swap_used_bytes", "vm_pte_bytes", "private_estimate_bytes", "pss_private_bytes"} {
		if v, ok := got[absent]; ok {
			t.Errorf("%s recorded as %v: it was not read", absent, v)
		}
	}
	if got["mem_available_estimate_bytes"] != 1<<30 || got["mem_total_bytes"] != 8<<30 {
		t.Errorf("points %v: want the estimate in its own series and MemTotal", got)
	}
}

// watch --record refuses a file that is not dbmem's and leaves it byte for
// byte as it was: another program's SQLite database (made by the sqlite3
// shell when installed, else by the driver), one marked with another
// application_id, and a file that is not SQLite at all.
func TestOpenRefusesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]string{
		"shop.db":   `CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'ann');`,
		"fossil.db": `PRAGMA application_id = 252006673; CREATE TABLE blob (rid INTEGER PRIMARY KEY);`,
		"meta.db":   `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', 'someone-else/v1');`,
	}
	for name, sqlText := range cases {
		p := filepath.Join(dir, name)
		makeSQLite(t, p, sqlText)
		assertRefused(t, p, "not a dbmem history file")
	}
	notSQLite := filepath.Join(dir, "notes.txt")
	os.WriteFile(notSQLite, []byte(strings.Repeat("my notes\n", 50)), 0o644)
	assertRefused(t, notSQLite, "not an SQLite file")
}

// makeSQLite creates a database with the sqlite3 shell when it is
// installed (a real foreign writer), else with the driver.
func makeSQLite(t *testing.T, path, sqlText string) {
	t.Helper()
	if sh, err := exec.LookPath("sqlite3"); err == nil {
		if out, err := exec.Command(sh, path, sqlText).CombinedOutput(); err != nil {
			t.Fatalf("sqlite3: %v: %s", err, out)
		}
		return
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range strings.Split(sqlText, ";") {
		if strings.TrimSpace(q) != "" {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func assertRefused(t *testing.T, path, want string) {
	t.Helper()
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(path, time.Hour)
	if err == nil {
		s.Close()
		t.Errorf("%s: opened for recording, want a refusal", path)
	} else if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
		t.Errorf("%s: error %q, want it to name the file and say %q", path, err, want)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Errorf("%s changed: %d bytes before, %d after", path, len(before), len(after))
	}
	for _, side := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + side); err == nil {
			t.Errorf("%s%s was created", path, side)
		}
	}
}

// An empty file, an empty database and a history written before dbmem
// marked its files are recorded into; each is then marked as dbmem's.
func TestOpenAcceptsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.db")
	os.WriteFile(empty, nil, 0o644)
	emptyDB := filepath.Join(dir, "emptydb.db")
	makeSQLite(t, emptyDB, `PRAGMA user_version = 0;`)
	old := filepath.Join(dir, "old.db")
	makeSQLite(t, old, `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL); INSERT INTO meta VALUES ('schema', '`+Schema+`');`)
	for _, p := range []string{empty, emptyDB, old, filepath.Join(dir, "new.db")} {
		s, err := Open(p, 0)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if err := s.Add(frame(0)); err != nil {
			t.Error(err)
		}
		s.Close()
		head, _ := readHeader(p)
		if len(head) < 72 || binary.BigEndian.Uint32(head[68:72]) != ApplicationID {
			t.Errorf("%s: not marked with dbmem's application_id", p)
		}
		if s, err := Open(p, 0); err != nil {
			t.Errorf("%s: reopen: %v", p, err)
		} else {
			s.Close()
		}
	}
}
