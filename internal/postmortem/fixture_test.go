package postmortem

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
)

// Real fixtures recorded on this machine (kernel 6.18.44, PostgreSQL 15.20):
// a backend killed in a 128 MiB memory cgroup, and the server's log.
const (
	pgKernelISO  = "../oomlog/testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg-iso.txt"
	pgKernelMono = "../oomlog/testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg.txt"
	pgServerLog  = "../dblog/testdata/postgresql-15-backend-oom-kill-stderr.log"
	checkpointer = "../oomlog/testdata/handwritten-kernel-6.1-global-journal-short-iso-precise.txt"
	seedGlobal49 = "../oomlog/testdata/handwritten-kernel-4.9-global-dmesg-T.txt"
)

func fileText(t testing.TB, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readLog(t *testing.T, kind Kind, p string) Log {
	t.Helper()
	b := fileText(t, p)
	return Log{Kind: kind, Source: p, State: StateRead, Text: b, SizeBytes: int64(len(b)), ReadBytes: int64(len(b))}
}

func TestRealBackendKillInMemcg(t *testing.T) {
	r := Analyze(Input{Logs: []Log{readLog(t, KindKernel, pgKernelISO), readLog(t, KindPostgres, pgServerLog)}, Zone: "UTC"})
	if r.Kills != 1 || len(r.Events) != 1 {
		t.Fatalf("kills %d events %d, want 1", r.Kills, len(r.Events))
	}
	x := r.Events[0]
	v := x.Victim
	if v.PID != 4180 || v.Name != "postgres" || v.Role != "client backend" || v.RoleFrom != "database log" {
		t.Errorf("victim = %+v", v)
	}
	if vu(v.AnonBytes) != 133504<<10 || vu(v.ShmemBytes) != 3536<<10 || vu(v.PgtablesBytes) != 616<<10 || vi(v.OOMScoreAdj) != 0 {
		t.Errorf("victim sizes = %+v", v)
	}
	if vu(v.FreedBytes) != (133504+616)<<10 || v.ShmemDominates {
		t.Errorf("freed %d dominates %v", vu(v.FreedBytes), v.ShmemDominates)
	}
	if x.Scope.Constraint != "memcg" || vu(x.Scope.LimitBytes) != 128<<20 || !strings.Contains(x.Scope.Cgroup, "dbmem-oomtest-3920-953927") {
		t.Errorf("scope = %+v", x.Scope)
	}
	c := x.Crash
	if c == nil || c.MatchedBy != "pid" || !c.Certain || c.Guess != "" || !strings.Contains(c.Query, "generate_series") {
		t.Fatalf("crash = %+v", c)
	}
	if c.Downtime == nil || *c.Downtime < 700*time.Millisecond || *c.Downtime > 800*time.Millisecond || c.Recovery == nil || *c.Recovery != 530*time.Millisecond {
		t.Errorf("downtime %v recovery %v, want about 0.78 s after the kill and 0.53 s", c.Downtime, c.Recovery)
	}
	if len(c.Steps) < 5 || c.Steps[len(c.Steps)-1].What != "ready to accept connections" {
		t.Errorf("steps = %+v", c.Steps)
	}
	if !hasAdvice(r, "postmortem.backend_restart") || !hasAdvice(r, "postmortem.cgroup_limit") || hasAdvice(r, "postmortem.shmem_victim") {
		t.Errorf("advice = %+v", r.Advice)
	}
}

func hasAdvice(r *Report, id string) bool {
	for _, a := range r.Advice {
		if a.ID == id {
			return true
		}
	}
	return false
}

// The hand-written 6.1 report (a checkpointer that touched 4 GB of
// shared_buffers without huge pages) says the kill freed almost nothing.
func TestShmemHeavyVictim(t *testing.T) {
	r := Analyze(Input{Logs: []Log{readLog(t, KindKernel, checkpointer)}, Zone: "UTC"})
	if len(r.Events) != 1 {
		t.Fatalf("events = %d", len(r.Events))
	}
	x := r.Events[0]
	if !x.Victim.ShmemDominates || vu(x.Victim.FreedBytes) != (3012+8264)<<10 || x.Scope.Constraint != "global" {
		t.Fatalf("victim = %+v scope %+v", x.Victim, x.Scope)
	}
	if !strings.Contains(strings.Join(x.Notes, " "), "The kill freed almost nothing: 3.99 GiB of its 3.99 GiB RSS was shared memory") {
		t.Errorf("notes = %q", x.Notes)
	}
	if !hasAdvice(r, "postmortem.shmem_victim") {
		t.Errorf("advice = %+v", r.Advice)
	}
	if len(x.Tasks) != 5 || x.Tasks[0].RSSBytes < x.Tasks[1].RSSBytes || x.Tasks[0].AnonBytes != nil {
		t.Errorf("top tasks = %+v", x.Tasks)
	}
	if x.Time.UTC().Format(time.RFC3339) != "2026-11-22T20:29:01Z" || !x.ZoneKnown {
		t.Errorf("time = %v (zone known %v), want 21:29:01+01:00", x.Time, x.ZoneKnown)
	}
}

// The seed 001 report (kernel 4.9, dmesg -T) with the PostgreSQL log lines
// of the same field report: a backend running a sort with a huge work_mem.
func TestSeedReportWithItsPostgresLog(t *testing.T) {
	pg := Log{Kind: KindPostgres, Source: "postgresql.log", State: StateRead, Text: []byte(
		"2020-04-05 18:24:24 CEST 13654: 9-1 user=,db=,app=,client= LOG:  server process (PID 14643) was terminated by signal 9: Killed\n" +
			"2020-04-05 18:24:24 CEST 13654: 10-1 user=,db=,app=,client= DETAIL:  Failed process was running: EXPLAIN (ANALYZE,BUFFERS,SETTINGS) SELECT i FROM generate_series(1,50000000) i ORDER BY i DESC;\n" +
			"2020-04-05 18:24:24 CEST 13654: 11-1 user=,db=,app=,client= LOG:  terminating any other active server processes\n" +
			"2020-04-05 18:24:25 CEST 13654: 12-1 user=,db=,app=,client= LOG:  all server processes terminated; reinitializing\n")}
	k := readLog(t, KindKernel, seedGlobal49)
	k.Zone = "Europe/Paris" // dmesg -T prints local time without a zone
	r := Analyze(Input{Logs: []Log{k, pg}, Zone: "Europe/Paris"})
	if len(r.Events) != 1 {
		t.Fatalf("events %d", len(r.Events))
	}
	x := r.Events[0]
	c := x.Crash
	if c == nil || !c.Certain || c.Delta == nil || *c.Delta != time.Second || !c.Incomplete || !strings.Contains(c.Query, "ORDER BY i DESC") {
		t.Fatalf("crash = %+v", c)
	}
	if x.Victim.Role != "client backend" || vu(x.Victim.AnonBytes) != 4484992<<10 || x.Victim.ShmemDominates {
		t.Errorf("victim = %+v", x.Victim)
	}
	var pm *Task
	for i, tk := range x.Tasks {
		if tk.PID == 13654 {
			pm = &x.Tasks[i]
		}
	}
	if x.Tasks[0].PID != 14643 || !x.Tasks[0].Victim || pm == nil || pm.Role != "postmaster" || vi(pm.OOMScoreAdj) != -900 {
		t.Errorf("tasks = %+v", x.Tasks)
	}
}

// One report in two sources (dmesg --time-format iso and plain dmesg with
// [seconds] given the boot time) is one kill seen in both.
func TestSameReportInTwoSourcesIsMerged(t *testing.T) {
	iso, mono := readLog(t, KindKernel, pgKernelISO), readLog(t, KindKernel, pgKernelMono)
	ei, _ := parseKernel([]Log{iso}, time.UTC, HostID{})
	em, _ := parseKernelLog(mono, time.UTC, 0)
	mono.BootTime = ei[0].Time.Wall.Add(-em[0].Time.Monotonic)
	r := Analyze(Input{Logs: []Log{mono, iso}, Zone: "UTC"})
	if r.Kills != 1 || len(r.Events[0].Sources) != 2 || !r.Events[0].ZoneKnown {
		t.Fatalf("kills %d, sources %v", r.Kills, r.Events[0].Sources)
	}
	if r.Sources[0].Kills != 1 || r.Sources[1].Kills != 1 {
		t.Errorf("per-source counts %+v", r.Sources)
	}
}

// A kernel log read in the wrong zone, and a crash that names another PID:
// the pairing is a guess, and says by how much the clocks differ.
func TestTimeShiftedPairingIsAGuess(t *testing.T) {
	k := readLog(t, KindKernel, pgKernelISO)
	k.Text = []byte(strings.NewReplacer("2026-11-22T21:", "2026-11-22T22:", "+00:00", "").Replace(string(k.Text)))
	pg := readLog(t, KindPostgres, pgServerLog)
	pg.Text = []byte(strings.Replace(string(pg.Text), "(PID 4180)", "(PID 4999)", 1))
	r := Analyze(Input{Logs: []Log{k, pg}, Zone: "UTC"})
	c := r.Events[0].Crash
	if c == nil || c.Certain || c.MatchedBy != "time-shifted" || c.Shift == nil || *c.Shift != -time.Hour || !strings.Contains(c.Guess, "a guess") {
		t.Fatalf("crash = %+v", c)
	}
	if r.Events[0].ZoneKnown {
		t.Error("the kernel stamps carried no zone: ZoneKnown must be false")
	}
	var buf strings.Builder
	Text(&buf, r)
	for _, want := range []string{"a guess: paired by time with the two clocks -1 h apart", "(the log printed no zone: UTC assumed)"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, buf.String())
		}
	}
}

// A restart no kill explains (MariaDB killed by a test, no kernel report).
func TestCrashWithoutKill(t *testing.T) {
	my := readLog(t, KindMySQL, "../dblog/testdata/mariadb-10.11-sigkill-restart-error.log")
	r := Analyze(Input{Logs: []Log{my}, Zone: "UTC"})
	if r.Kills != 0 || len(r.Crashes) == 0 || r.Crashes[0].Engine != "mysql" || r.Crashes[0].MatchedBy != "" {
		t.Fatalf("kills %d crashes %+v", r.Kills, r.Crashes)
	}
	if len(r.Advice) != 0 || r.ThisHost != nil {
		t.Errorf("no kill, no advice: %+v", r.Advice)
	}
}

// PostgreSQL's "out of memory" errors are listed with their context dump.
func TestOutOfMemoryErrors(t *testing.T) {
	r := Analyze(Input{Logs: []Log{readLog(t, KindPostgres, "../dblog/testdata/postgresql-15-out-of-memory-postgresql.log")}})
	if len(r.OutOfMemory) == 0 {
		t.Fatal("no out-of-memory error")
	}
	e := r.OutOfMemory[0]
	if vu(e.RequestBytes) != 33554432 || e.Context != "ExecutorState" || e.Largest != "ExecutorState" || vu(e.GrandTotal) != 120310856 {
		t.Errorf("error = %+v", e)
	}
}

// --since and --last keep the newest kills.
func TestSinceAndLast(t *testing.T) {
	logs := []Log{readLog(t, KindKernel, checkpointer), readLog(t, KindKernel, pgKernelISO)}
	if r := Analyze(Input{Logs: logs, Last: 1}); r.Kills != 2 || len(r.Events) != 1 || r.Omitted != 1 || r.Events[0].Victim.PID != 4180 {
		t.Errorf("last 1: kills %d shown %d omitted %d", r.Kills, len(r.Events), r.Omitted)
	}
	since := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	if r := Analyze(Input{Logs: logs, Since: since}); len(r.Events) != 1 || r.Events[0].Victim.PID != 4180 {
		t.Errorf("since: %d events", len(r.Events))
	}
}

// Findings about the instances an event involves (and the host) are kept;
// those about other instances are not.
func TestRelevantFindingsFollowTheEvents(t *testing.T) {
	fs := []finding.Finding{{ID: "overcommit.mode", Subject: "host"}, {ID: "thp.enabled", Subject: "host"},
		{ID: "memory.worst_case", Subject: "postgresql 15 :5432 (/a)"}, {ID: "memory.worst_case", Subject: "postgresql 15 :5433 (/b)"}}
	got := RelevantFindings(fs, map[string]bool{"postgresql 15 :5432 (/a)": true})
	if len(got) != 2 || got[0].ID != "overcommit.mode" || got[1].Subject != "postgresql 15 :5432 (/a)" {
		t.Errorf("got %+v", got)
	}
	if got := RelevantFindings(fs, nil); len(got) != 3 {
		t.Errorf("no instance named: %+v", got)
	}
}

// vu and vi read optional figures; -1 stands for "not in the log".
func vu(p *uint64) int64 {
	if p == nil {
		return -1
	}
	return int64(*p)
}

func vi(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}
