package dblog

import (
	"strings"
	"testing"
	"time"
)

func parsePG(t *testing.T, text string, o Options) PostgresLog {
	t.Helper()
	log, err := o.ParsePostgres(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// HAND-WRITTEN from the field report in shared/seeds/001: a custom
// log_line_prefix '%t %z %p: %l-%c user=%u,db=%d,app=%a,client=%h ' in CEST.
func TestCustomPrefixInCEST(t *testing.T) {
	text := `2020-04-05 18:24:24 CEST 13654: 9-1 user=,db=,app=,client= LOG:  server process (PID 14643) was terminated by signal 9: Killed
2020-04-05 18:24:24 CEST 13654: 10-1 user=,db=,app=,client= DETAIL:  Failed process was running: EXPLAIN (ANALYZE,BUFFERS,SETTINGS) SELECT i FROM generate_series(1,50000000) i ORDER BY i DESC;
2020-04-05 18:24:24 CEST 13654: 11-1 user=,db=,app=,client= LOG:  terminating any other active server processes
2020-04-05 18:24:25 CEST 13654: 12-1 user=,db=,app=,client= LOG:  all server processes terminated; reinitializing
`
	c := parsePG(t, text, Options{}).Crashes
	if len(c) != 1 || pv(c[0].KilledPID) != 14643 || pv(c[0].ServerPID) != 13654 || !strings.HasPrefix(c[0].Query, "EXPLAIN") {
		t.Fatalf("crashes = %+v", c)
	}
	if want := time.Date(2020, 4, 5, 16, 24, 24, 0, time.UTC); !c[0].Time.Equal(want) || !c[0].ZoneKnown {
		t.Errorf("time %v (zone known %v), want %v", c[0].Time, c[0].ZoneKnown, want)
	}
	if !c[0].Incomplete || c[0].ReinitializedAt.IsZero() {
		t.Errorf("the log ends while reinitializing: %+v", c[0])
	}
}

// HAND-WRITTEN in Debian's default prefix '%m [%p] %q%u@%d ' with the
// messages of PostgreSQL 15 after its checkpointer was killed.
func TestDebianPrefixCheckpointerKilled(t *testing.T) {
	text := `2026-11-22 21:29:01.100 CET [1120] LOG:  checkpointer process (PID 1122) was terminated by signal 9: Killed
2026-11-22 21:29:01.100 CET [1120] LOG:  terminating any other active server processes
2026-11-22 21:29:01.101 CET [2001] app@shop WARNING:  terminating connection because of crash of another server process
2026-11-22 21:29:01.101 CET [2001] app@shop DETAIL:  The postmaster has commanded this server process to roll back the current transaction and exit, because another server process exited abnormally and possibly corrupted shared memory.
2026-11-22 21:29:01.101 CET [2001] app@shop HINT:  In a moment you should be able to reconnect to the database and repeat your command.
2026-11-22 21:29:01.102 CET [2002] app@shop WARNING:  terminating connection because of crash of another server process
2026-11-22 21:29:01.150 CET [1120] LOG:  all server processes terminated; reinitializing
2026-11-22 21:29:01.300 CET [3001] LOG:  database system was interrupted; last known up at 2026-11-22 21:24:01 CET
2026-11-22 21:29:01.400 CET [3001] LOG:  database system was not properly shut down; automatic recovery in progress
2026-11-22 21:29:01.410 CET [3001] LOG:  redo starts at 0/2A6E9B8
2026-11-22 21:29:03.660 CET [3001] LOG:  redo done at 0/3000108 system usage: CPU: user: 1.02 s, system: 0.51 s, elapsed: 2.25 s
2026-11-22 21:29:04.100 CET [1120] LOG:  database system is ready to accept connections
`
	c := parsePG(t, text, Options{}).Crashes
	if len(c) != 1 {
		t.Fatalf("crashes = %+v", c)
	}
	cr := c[0]
	if cr.Process != "checkpointer process" || cr.SessionsTerminated != 2 || cr.RedoElapsed == nil || *cr.RedoElapsed != 2250*time.Millisecond ||
		cr.Incomplete || cr.LastKnownUp != "2026-11-22 21:24:01 CET" || downtime(cr) != 3*time.Second {
		t.Errorf("crash = %+v", cr)
	}
	if cr.RedoStartAt.Sub(cr.Time) != 310*time.Millisecond || cr.Time.UTC().Hour() != 20 {
		t.Errorf("redo start %v time %v", cr.RedoStartAt, cr.Time)
	}
}

// HAND-WRITTEN: messages PostgreSQL prints for other endings.
func TestOtherEndings(t *testing.T) {
	cases := []struct {
		name, text string
		check      func(PostgresLog) bool
	}{
		{"restart_after_crash off", "LOG:  server process (PID 88) was terminated by signal 9: Killed\nLOG:  terminating any other active server processes\nLOG:  shutting down because restart_after_crash is off\nLOG:  database system is shut down\n",
			func(l PostgresLog) bool {
				return len(l.Crashes) == 1 && l.Crashes[0].NoRestart && !l.Crashes[0].Incomplete
			}},
		{"worker exit at shutdown is no crash", "LOG:  background worker \"logical replication launcher\" (PID 77) exited with exit code 1\nLOG:  database system is shut down\n",
			func(l PostgresLog) bool { return len(l.Crashes) == 0 }},
		{"exit code that restarts", "LOG:  server process (PID 88) exited with exit code 2\nLOG:  terminating any other active server processes\nLOG:  database system is ready to accept connections\n",
			func(l PostgresLog) bool {
				c := l.Crashes
				return len(c) == 1 && pv(c[0].ExitCode) == 2 && pv(c[0].KilledPID) == 88
			}},
		{"multi-line query", "2026-11-22 21:29:01 UTC [5] LOG:  server process (PID 9) was terminated by signal 9: Killed\n2026-11-22 21:29:01 UTC [5] DETAIL:  Failed process was running: SELECT *\n\tFROM big\n\tORDER BY 1\n",
			func(l PostgresLog) bool { return l.Crashes[0].Query == "SELECT *\nFROM big\nORDER BY 1" }},
		{"epoch prefix %n", "1763846941.123 [5] LOG:  server process (PID 9) was terminated by signal 9: Killed\n",
			func(l PostgresLog) bool { return l.Crashes[0].Time.Equal(time.Unix(1763846941, 123e6)) }},
		{"panic", "2026-11-22 21:29:01 UTC [5] LOG:  terminating any other active server processes\n2026-11-22 21:29:02 UTC [5] LOG:  database system is ready to accept connections\n",
			func(l PostgresLog) bool {
				return len(l.Crashes) == 1 && l.Crashes[0].KilledPID == nil && !l.Crashes[0].Incomplete
			}},
		{"out of memory before 9.6", "ERROR:  out of memory\nDETAIL:  Failed on request of size 1024.\n",
			func(l PostgresLog) bool {
				o := l.OutOfMemory
				return len(o) == 1 && o[0].RequestBytes == 1024 && o[0].Context == ""
			}},
		{"csvlog crash", `2026-11-22 21:29:01.100 UTC,,,1120,,6b03.1,1,,2026-11-22 21:00:00 UTC,,0,LOG,00000,"server process (PID 9) was terminated by signal 9: Killed","Failed process was running: SELECT 1",,,,,,,,"","postmaster",,0` + "\n",
			func(l PostgresLog) bool {
				c := l.Crashes
				return len(c) == 1 && pv(c[0].KilledPID) == 9 && c[0].Query == "SELECT 1"
			}},
	}
	for _, c := range cases {
		if l := parsePG(t, c.text, Options{}); !c.check(l) {
			t.Errorf("%s: %+v", c.name, l)
		}
	}
}

func TestZones(t *testing.T) {
	ist := time.FixedZone("IST", 5*3600+1800)
	line := "2026-11-22 21:29:01.000 IST [5] LOG:  server process (PID 9) was terminated by signal 9: Killed\n"
	c := parsePG(t, line, Options{Location: ist}).Crashes[0]
	if !c.Time.Equal(time.Date(2026, 11, 22, 15, 59, 1, 0, time.UTC)) || c.ZoneKnown {
		t.Errorf("IST via Location: %v known %v", c.Time, c.ZoneKnown)
	}
	for zone, off := range map[string]int{"+01": 3600, "-0330": -12600, "+05:30": 19800, "CEST": 7200, "PST": -28800} {
		line := "2026-11-22 21:29:01.000 " + zone + " [5] LOG:  server process (PID 9) was terminated by signal 9: Killed\n"
		c := parsePG(t, line, Options{}).Crashes[0]
		want := time.Date(2026, 11, 22, 21, 29, 1, 0, time.UTC).Add(-time.Duration(off) * time.Second)
		if !c.Time.Equal(want) || !c.ZoneKnown {
			t.Errorf("%s: %v, want %v", zone, c.Time, want)
		}
	}
}

func downtime(c CrashRestart) time.Duration {
	d, _ := c.Downtime()
	return d
}
