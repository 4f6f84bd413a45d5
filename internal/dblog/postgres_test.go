package dblog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func parsePGFile(t *testing.T, name string) PostgresLog {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	log, err := ParsePostgres(f)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

func utc(s string) time.Time {
	t, err := time.Parse("2006-01-02 15:04:05.000", s)
	if err != nil {
		panic(err)
	}
	return t
}

// Recorded on this machine: PostgreSQL 15.20, one backend killed by the
// kernel in a 128 MiB memory cgroup (TestRootLivePostgresBackendOOMKill).
func TestRealPostgresCrashRestart(t *testing.T) {
	log := parsePGFile(t, "postgresql-15-backend-oom-kill-stderr.log")
	if len(log.Crashes) != 1 || len(log.OutOfMemory) != 0 {
		t.Fatalf("log = %+v", log)
	}
	c := log.Crashes[0]
	want := CrashRestart{Engine: "postgresql", Time: utc("2026-11-22 21:57:27.056"), TimeRaw: "2026-11-22 21:57:27.056 UTC",
		ZoneKnown: true, ServerPID: new(4129), Process: "server process", KilledPID: new(4180), Signal: new(9), SignalName: "Killed",
		Query:           "SELECT sum(i) FROM (SELECT i FROM generate_series(1, 20000000) i ORDER BY i DESC) s",
		TerminatingAt:   utc("2026-11-22 21:57:27.057"),
		ReinitializedAt: utc("2026-11-22 21:57:27.076"), RecoveryAt: utc("2026-11-22 21:57:27.338"), // the startup process: "was interrupted"
		RedoDoneAt: utc("2026-11-22 21:57:27.384"), ReadyAt: utc("2026-11-22 21:57:27.606"),
		LastKnownUp: "2026-11-22 21:57:22 UTC"}
	c.Lines = nil
	if !equalCrash(c, want) {
		t.Errorf("crash =\n%+v\nwant\n%+v", c, want)
	}
	down, _ := c.Downtime()
	rec, _ := c.RecoveryDuration()
	if down != 550*time.Millisecond || rec != 530*time.Millisecond {
		t.Errorf("downtime %v recovery %v", down, rec)
	}
	if n := len(log.Crashes[0].Lines); n != 8 {
		t.Errorf("%d lines", n)
	}
}

func equalCrash(a, b CrashRestart) bool {
	a.Lines, b.Lines = nil, nil
	return a.Time.Equal(b.Time) && a.ReadyAt.Equal(b.ReadyAt) && strings.EqualFold(a.TimeRaw, b.TimeRaw) &&
		pv(a.KilledPID) == pv(b.KilledPID) && pv(a.ServerPID) == pv(b.ServerPID) && pv(a.Signal) == pv(b.Signal) && a.SignalName == b.SignalName &&
		a.Query == b.Query && a.Process == b.Process && a.TerminatingAt.Equal(b.TerminatingAt) &&
		a.ReinitializedAt.Equal(b.ReinitializedAt) && a.RecoveryAt.Equal(b.RecoveryAt) &&
		a.RedoDoneAt.Equal(b.RedoDoneAt) && a.RedoStartAt.Equal(b.RedoStartAt) && a.LastKnownUp == b.LastKnownUp &&
		a.Incomplete == b.Incomplete && a.ZoneKnown == b.ZoneKnown && a.Engine == b.Engine
}

// Recorded on this machine: PostgreSQL 15.20, a backend whose address space
// was capped with prlimit fails its sort with ERROR: out of memory; the
// same error in the stderr, csvlog and jsonlog files of one server.
func TestRealPostgresOutOfMemoryError(t *testing.T) {
	for _, f := range []string{"log", "csv", "json"} {
		log := parsePGFile(t, "postgresql-15-out-of-memory-postgresql."+f)
		if len(log.OutOfMemory) != 1 || len(log.Crashes) != 0 {
			t.Fatalf("%s: %+v", f, log)
		}
		o := log.OutOfMemory[0]
		if o.PID != 6118 || o.RequestBytes != 33554432 || o.Context != "ExecutorState" || o.Severity != "ERROR" ||
			!o.Time.Equal(utc("2026-11-22 21:58:28.213")) || !strings.HasPrefix(o.Query, "SELECT sum(i)") {
			t.Errorf("%s: %+v", f, o)
		}
		if f != "log" {
			continue
		}
		if o.GrandTotal == nil || o.GrandTotal.TotalBytes != 120310856 || o.GrandTotal.Blocks != 226 || o.GrandTotal.UsedBytes != 118615352 {
			t.Errorf("grand total = %+v", o.GrandTotal)
		}
		top := o.Largest(1)
		if len(top) != 1 || top[0].Name != "ExecutorState" || top[0].TotalBytes < 100<<20 || top[0].Depth == 0 {
			t.Errorf("largest = %+v", top)
		}
		if o.Contexts[0].Name != "TopMemoryContext" || o.Contexts[0].TotalBytes != 97680 || o.Contexts[0].FreeChunks != 6 {
			t.Errorf("first context = %+v", o.Contexts[0])
		}
	}
}
