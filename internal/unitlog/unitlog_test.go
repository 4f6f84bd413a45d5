package unitlog

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
	"time"
)

func parseText(t *testing.T, text string) Log {
	t.Helper()
	l, err := Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// The unit messages of systemd 239 to 256, as journald and syslog print them.
func TestUnitMessages(t *testing.T) {
	l := parseText(t, `2026-11-22T21:57:26.900000+00:00 db1 systemd[1]: postgresql@16-main.service: A process of this unit has been killed by the OOM killer.
2026-11-22T21:57:27.000000+00:00 db1 systemd[1]: postgresql@16-main.service: Main process exited, code=killed, status=9/KILL
2026-11-22T21:57:27.100000+00:00 db1 systemd[1]: postgresql@16-main.service: Failed with result 'oom-kill'.
2026-11-22T21:57:27.200000+00:00 db1 systemd[1]: postgresql@16-main.service: Consumed 3min 2.5s CPU time, 912.0K memory peak.
2026-11-22T21:57:32.300000+00:00 db1 systemd[1]: postgresql@16-main.service: Scheduled restart job, restart counter is at 2.
2026-11-22T21:57:33.000000+00:00 db1 systemd[1]: Started PostgreSQL Cluster 16-main.
`)
	want := []string{UnitOOMKill, UnitMainExited, UnitFailed, UnitConsumed, UnitRestartScheduled, UnitStarted}
	if len(l.Units) != len(want) {
		t.Fatalf("units %+v, want %v", l.Units, want)
	}
	for i, k := range want {
		if l.Units[i].Kind != k {
			t.Errorf("event %d: %s, want %s", i, l.Units[i].Kind, k)
		}
	}
	u := l.Units
	if u[1].MainCode != "killed" || u[1].MainStatus != "9/KILL" || u[2].Result != "oom-kill" || *u[4].RestartCounter != 2 {
		t.Errorf("fields: %+v", u)
	}
	if u[3].MemoryPeakBytes == nil || *u[3].MemoryPeakBytes != 912*1024 || u[3].SwapPeakBytes != nil {
		t.Errorf("memory peak %v, swap %v; want 933888 and unknown", u[3].MemoryPeakBytes, u[3].SwapPeakBytes)
	}
	if !u[0].Stamp.ZoneKnown || u[0].Stamp.Wall.IsZero() || u[0].Host != "db1" || u[5].Description != "PostgreSQL Cluster 16-main" {
		t.Errorf("stamp %+v host %q desc %q", u[0].Stamp, u[0].Host, u[5].Description)
	}
}

// oomd's wordings: systemd 247-252 "Killed ... due to", 253+ "Marked ...
// for killing", and the swap kills.
func TestOomdKillsAndSwap(t *testing.T) {
	l := parseText(t, `Mar 01 14:37:27 h systemd-oomd[666]: Killed /user.slice/u.scope due to swap used (4294967296) / total (4294967296) being more than 90.00%
Mar 01 14:37:28 h systemd-oomd[666]: Marked /system.slice/postgresql.service for killing due to memory pressure for /system.slice being 80.50% > 60.00% for > 30s with reclaim activity
Mar 01 14:37:29 h systemd-oomd[666]: Killed /system.slice/x.service due to memory used (1000) / total (2000) and swap used (900) / total (1000) being more than 90.00%
`)
	if len(l.Killers) != 3 {
		t.Fatalf("killers %+v", l.Killers)
	}
	k := l.Killers
	if k[0].Reason != "swap" || k[0].Value != "100.00%" || k[0].Threshold != "90.00%" || k[0].Action != "kill" {
		t.Errorf("swap kill %+v", k[0])
	}
	if k[1].Action != "mark" || k[1].Victim != "/system.slice/postgresql.service" || k[1].Monitored != "/system.slice" ||
		k[1].Value != "80.50%" || k[1].Threshold != "60.00%" || k[1].Duration != "30s" {
		t.Errorf("mark %+v", k[1])
	}
	if k[2].Reason != "swap" || k[2].Value != "90.00%" {
		t.Errorf("v247 swap kill %+v", k[2])
	}
	if y := (Options{Year: 2024}); true {
		l, _ := y.Parse(strings.NewReader("Mar 01 14:37:27 h systemd-oomd[666]: Killed /a.scope due to memory pressure for /b being 1.00% > 0.50% for > 1s with reclaim activity\n"))
		if w := l.Killers[0].Stamp.Wall; w.Year() != 2024 || w.Month() != time.March {
			t.Errorf("wall %v, want March 2024", w)
		}
	}
}

// earlyoom 1.1 and 1.2 kill lines; kubelet's structured lines; OOMKilled.
func TestOlderEarlyoomAndKubelet(t *testing.T) {
	l := parseText(t, `Killing process 'bash' with signal 15, pid: 5874, badness: 538, VmRSS: 3160 MiB
killing process 27541 "bash" with signal 9: badness 550, VmRSS 7609 MiB
I0412 09:28:14.769517   14260 eviction_manager.go:344] "Eviction manager: must evict pod(s) to reclaim" resourceName="memory"
I0412 09:28:15.769517   14260 eviction_manager.go:400] "Eviction manager: pods evicted, waiting for pod to be cleaned up" pods=["db/postgres-0"]
    Last State:     Terminated
      Reason:       OOMKilled
      Exit Code:    137
`)
	if len(l.Killers) != 4 {
		t.Fatalf("killers %+v", l.Killers)
	}
	k := l.Killers
	if k[0].Victim != "bash" || *k[0].VictimPID != 5874 || k[0].Signal != "SIGTERM" || k[1].Signal != "SIGKILL" || *k[1].RSSBytes != 7609<<20 {
		t.Errorf("earlyoom %+v %+v", k[0], k[1])
	}
	if k[2].Reason != "eviction-memory" || k[2].Victim != "db/postgres-0" || k[3].Action != "oom-killed" {
		t.Errorf("kubernetes %+v %+v", k[2], k[3])
	}
}

func TestPanics(t *testing.T) {
	l := parseText(t, `Nov 22 21:29:01 db1 kernel: [ 5123.456789] Kernel panic - not syncing: Out of memory: system-wide panic_on_oom is enabled
[  910.113950] Kernel panic - not syncing: Out of memory: compulsory panic_on_oom is enabled
`)
	if len(l.Killers) != 2 || l.Killers[0].Threshold != "vm.panic_on_oom=1 or 2" || l.Killers[1].Threshold != "vm.panic_on_oom=2" {
		t.Fatalf("panics %+v", l.Killers)
	}
	if s := l.Killers[0].Stamp; s.Raw != "Nov 22 21:29:01" || !s.HasMonotonic || s.Monotonic != 5123456789*time.Microsecond {
		t.Errorf("stamp %+v", s)
	}
}

// journalctl -o json and -o export, with a binary MESSAGE, become text
// that Parse reads; UNIT names the unit of "Started" lines.
func TestJournalExports(t *testing.T) {
	js := `{"__REALTIME_TIMESTAMP":"1732310941123456","_HOSTNAME":"db1","SYSLOG_IDENTIFIER":"systemd","_PID":"1","MESSAGE":"postgresql.service: Failed with result 'oom-kill'."}
{"__REALTIME_TIMESTAMP":"1732310942000000","_HOSTNAME":"db1","SYSLOG_IDENTIFIER":"systemd","_PID":"1","UNIT":"postgresql.service","MESSAGE":[83,116,97,114,116,101,100,32,80,71,46]}
not json
`
	if JournalFormat([]byte(js)) != FormatJSON {
		t.Fatal("json not recognised")
	}
	text, skipped, err := Journal(strings.NewReader(js), FormatJSON)
	if err != nil || skipped != 1 {
		t.Fatalf("skipped %d, %v", skipped, err)
	}
	l := parseText(t, string(text))
	if len(l.Units) != 2 || l.Units[1].Unit != "postgresql.service" || l.Units[1].Kind != UnitStarted ||
		!l.Units[0].Stamp.Wall.Equal(time.UnixMicro(1732310941123456)) {
		t.Fatalf("from json: %q -> %+v", text, l.Units)
	}
	var ex bytes.Buffer
	ex.WriteString("__CURSOR=s=1\n__REALTIME_TIMESTAMP=1732310941123456\n_TRANSPORT=kernel\n_HOSTNAME=db1\nMESSAGE\n")
	msg := "Kernel panic - not syncing: Out of memory: compulsory panic_on_oom is enabled"
	binary.Write(&ex, binary.LittleEndian, uint64(len(msg)))
	ex.WriteString(msg + "\n\n")
	if JournalFormat(ex.Bytes()) != FormatExport {
		t.Fatal("export not recognised")
	}
	text, _, err = Journal(bytes.NewReader(ex.Bytes()), FormatExport)
	l = parseText(t, string(text))
	if err != nil || len(l.Killers) != 1 || l.Killers[0].Host != "db1" {
		t.Fatalf("from export: %q -> %+v (%v)", text, l.Killers, err)
	}
}
