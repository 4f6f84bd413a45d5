package postmortem

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func givenText(t *testing.T, kind Kind, names ...string) string {
	t.Helper()
	var logs []Log
	for _, n := range names {
		b, err := os.ReadFile("testdata/corpus/" + n + ".log")
		if err != nil {
			t.Fatal(err)
		}
		l := Log{Kind: kind, Source: n, State: StateRead, Text: b, Given: true, SizeBytes: int64(len(b)), ReadBytes: int64(len(b))}
		if kind == "" {
			l = detectKind(l)
		}
		logs = append(logs, l)
	}
	var out bytes.Buffer
	if err := Text(&out, Analyze(Input{Logs: logs, Zone: "UTC"})); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// The findings, on the logs they were found on: a CST time shown
// as written (not as UTC), a redacted size unknown (not 1 B), Oracle not
// labelled PostgreSQL, the systemd unit's fate said.
func TestChainTextOnPostedLogs(t *testing.T) {
	cst := givenText(t, "", "d13-digoal-blog-94-pg-cst-recovery-mode")
	if !strings.Contains(cst, "2021-05-06 00:00:05 CST (as written)") || strings.Contains(cst, "00:00:05.000 UTC") ||
		!strings.Contains(cst, "CST names several zones") {
		t.Errorf("CST crash:\n%s", cst)
	}
	red := givenText(t, "", "g02-temboard-1618-pg15-cst-redacted-size-autovacuum")
	if !strings.Contains(red, "request size hidden in the log (unknown)") || strings.Contains(red, "1 B") ||
		!strings.Contains(red, "autovacuum of temboard.statements.statements_history_current") {
		t.Errorf("redacted size:\n%s", red)
	}
	ora := givenText(t, "", "r01-theskythelimit-2005-ora-04030-ckpt-terminated")
	if !strings.Contains(ora, "  oracle  ") || strings.Contains(ora, "postgresql") || !strings.Contains(ora, "terminated by CKPT (pid 10317)") {
		t.Errorf("Oracle log:\n%s", ora)
	}
	unit := givenText(t, KindKernel, "s01-copr-4447-pg-systemd-oom-kill-failed")
	if !strings.Contains(unit, "postgresql.service: stopped after the kernel's OOM killer killed a process of it") ||
		!strings.Contains(unit, "memory peak 6.50 GiB; swap peak 24.1 MiB") || !strings.Contains(unit, "OOMPolicy=stop") {
		t.Errorf("unit:\n%s", unit)
	}
	none := givenText(t, "", "g03-citus-3476-pg-dump-client-oom")
	if !strings.Contains(none, "(no time in the log)") || strings.Contains(none, "assumed") {
		t.Errorf("no time:\n%s", none)
	}
}

func TestRecoveryWaitInText(t *testing.T) {
	log := `2024-03-01 10:00:00.000 UTC [100] LOG:  server process (PID 4242) was terminated by signal 9: Killed
2024-03-01 10:00:00.500 UTC [100] LOG:  all server processes terminated; reinitializing
2024-03-01 10:03:30.500 UTC [4300] LOG:  redo starts at 5/2A000028
2024-03-01 10:03:37.500 UTC [4300] LOG:  redo done at 5/9F001234 system usage: CPU: user: 5.10 s, system: 1.20 s, elapsed: 7.00 s
2024-03-01 10:03:37.500 UTC [100] LOG:  database system is ready to accept connections
`
	var out bytes.Buffer
	Text(&out, Analyze(Input{Logs: []Log{{Kind: KindPostgres, Source: "pg.log", State: StateRead, Text: []byte(log), Given: true}}, Zone: "UTC"}))
	if !strings.Contains(out.String(), "recovery 7 s from redo start to ready, after waiting 3 min 30 s before redo started") {
		t.Errorf("recovery:\n%s", out.String())
	}
}
