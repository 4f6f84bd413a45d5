package oomlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func parseText(t *testing.T, text string, o Options) []Event {
	t.Helper()
	events, err := o.Parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func realText(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", realHog+"-dmesg.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCutOffReports(t *testing.T) {
	text := realText(t)
	inTable := text[:strings.Index(text, "oom-kill:")]
	e := one(t, parseText(t, inTable, Options{}))
	if !e.Incomplete || e.Victim != nil || len(e.Tasks) != 1 || !strings.Contains(e.IncompleteReason, "task table") {
		t.Errorf("cut in table: incomplete %v %q victim %+v tasks %d", e.Incomplete, e.IncompleteReason, e.Victim, len(e.Tasks))
	}
	midKill := text[:strings.Index(text, "anon-rss:65280")+12]
	e = one(t, parseText(t, midKill, Options{}))
	if !e.Incomplete || e.Victim == nil || e.Victim.PID != 15970 || e.IncompleteReason != "the kill line is cut off" {
		t.Errorf("cut in kill line: %v %q %+v", e.Incomplete, e.IncompleteReason, e.Victim)
	}
	midRow := text[:strings.Index(text, "[  15970]")+30]
	e = one(t, parseText(t, midRow, Options{}))
	if !e.Incomplete || len(e.Tasks) != 0 {
		t.Errorf("cut in a row: %v tasks %+v", e.Incomplete, e.Tasks)
	}
}

func TestStartsInsideTaskTable(t *testing.T) {
	text := realText(t)
	e := one(t, parseText(t, text[strings.Index(text, "[  937.485535]"):], Options{}))
	// The kill part is whole: the event is not incomplete, but says its start is missing.
	if e.Incomplete || e.StartMissing != "the log starts inside the task table" || len(e.Tasks) != 1 || e.Tasks[0].PID != 15970 ||
		e.Victim == nil || e.Constraint != ConstraintMemcg {
		t.Errorf("got incomplete %v %q tasks %+v victim %+v", e.Incomplete, e.IncompleteReason, e.Tasks, e.Victim)
	}
}

func TestDuplicates(t *testing.T) {
	text := realText(t)
	kill := text[strings.Index(text, "[  937.485561]"):]
	e := one(t, parseText(t, text+kill, Options{}))
	if e.Incomplete || len(e.Lines) != 80 {
		t.Errorf("kill line twice: incomplete %v, %d lines", e.Incomplete, len(e.Lines))
	}
	e = one(t, parseText(t, text+text, Options{}))
	if e.Incomplete || len(e.Tasks) != 1 {
		t.Errorf("report twice: %+v", e)
	}
	second := strings.ReplaceAll(text, "15970", "15999")
	if n := len(parseText(t, text+second, Options{})); n != 2 {
		t.Errorf("two kills: %d events", n)
	}
}

// Lines wrapped by a terminal or a mail client, continued with "↪".
func TestWrappedLines(t *testing.T) {
	text := `Oct 14 10:22:40 localhost kernel: sh invoked oom-killer:
 ↪gfp_mask=0xd0, order=0, oom_score_adj=0
Oct 14 10:22:40 localhost kernel: memory: usage 4kB, limit
 ↪4kB, failcnt 8
Oct 14 10:22:40 localhost kernel: [ pid ]   uid  tgid total_vm
 ↪rss nr_ptes swapents oom_score_adj name
Oct 14 10:22:40 localhost kernel: [ 2687]     0  2687    28281
 ↪347     12        0             0 sh
Oct 14 10:22:40 localhost kernel: Memory cgroup out of memory:
 ↪Kill process 2687 (sh) score 0 or sacrifice child
Oct 14 10:22:40 localhost kernel: Killed process 2702 (sh)
 ↪total-vm:113124kB, anon-rss:200kB, file-rss:0kB
`
	e := one(t, parseText(t, text, Options{Year: 2015}))
	if e.Trigger == nil || e.Trigger.GFPMask != "0xd0" || e.Memcg == nil || e.Memcg.LimitBytes != 4096 {
		t.Errorf("trigger %+v memcg %+v", e.Trigger, e.Memcg)
	}
	if len(e.Tasks) != 1 || e.Tasks[0].RSSBytes != 347*4096 || vu(e.Tasks[0].PgtablesBytes) != 12*4096 {
		t.Errorf("tasks = %+v", e.Tasks)
	}
	// The kernel chose 2687 and killed its child 2702 instead.
	if e.Selected.PID != 2687 || e.Victim.PID != 2702 || vu(e.Victim.TotalVMBytes) != 113124<<10 || e.Incomplete {
		t.Errorf("selected %+v victim %+v incomplete %q", e.Selected, e.Victim, e.IncompleteReason)
	}
}

func TestOtherFormats(t *testing.T) {
	cases := []struct {
		name, text string
		check      func(Event) bool
	}{
		{"2.6.2x", "Out of Memory: Kill process 2345 (java) score 12345 and children.\nOut of memory: Killed process 2346 (java).\n",
			func(e Event) bool { return vi(e.Selected.Score) == 12345 && e.Victim.PID == 2346 && !e.Incomplete }},
		{"5.2 UID only", "Out of memory: Killed process 4321 (mysqld) total-vm:2000kB, anon-rss:1000kB, file-rss:0kB, shmem-rss:4kB, UID:27\n",
			func(e Event) bool {
				return vi(e.Victim.UID) == 27 && vu(e.Victim.ShmemRSSBytes) == 4096 && e.Victim.PgtablesBytes == nil
			}},
		{"kmsg", "3,1234,937485561,-;Memory cgroup out of memory: Killed process 1 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n",
			func(e Event) bool {
				return e.Time.Monotonic == 937485561*time.Microsecond && e.Constraint == ConstraintMemcg
			}},
		{"dmesg -x", "kern  :err   : [  937.485561] Out of memory: Killed process 9 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n",
			func(e Event) bool { return e.Time.HasMonotonic && e.Victim.PID == 9 }},
		{"rsyslog rfc3339", "2026-11-22T21:29:01.123456+00:00 db1 kernel: [  12.5] Out of memory: Killed process 9 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n",
			func(e Event) bool {
				return e.Time.Wall.Equal(time.Date(2026, 11, 22, 21, 29, 1, 123456000, time.UTC)) && e.Time.Monotonic == 12500*time.Millisecond
			}},
		{"short-monotonic", "[  937.485561] db1 kernel: Out of memory: Killed process 9 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n",
			func(e Event) bool { return e.Victim.Message == "Out of memory" && e.Time.HasMonotonic }},
		{"caller id", "[   32.056886][   T71] Out of memory: Killed process 737 (firewalld) total-vm:358672kB, anon-rss:22640kB, file-rss:12328kB, shmem-rss:0kB, UID:0 pgtables:421888kB oom_score_adj:0\n",
			func(e Event) bool { return vu(e.Victim.PgtablesBytes) == 421888<<10 }},
		{"name with parentheses", "Out of memory: Killed process 77 ((sd-pam)) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n",
			func(e Event) bool { return e.Victim.Name == "(sd-pam)" && !e.Incomplete }},
		{"localized dmesg -T", "[dim. avril  5 18:24:23 2020] Out of memory: Killed process 9 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n",
			func(e Event) bool { return e.Time.Clock == ClockNone && e.Time.Raw == "[dim. avril  5 18:24:23 2020]" }},
		{"reaper only", "[ 9.0] oom_reaper: reaped process 5 (x), now anon-rss:0kB, file-rss:0kB, shmem-rss:8kB\n",
			func(e Event) bool { return e.Incomplete && vu(e.Reaped.ShmemRSSBytes) == 8192 && e.Victim.PID == 5 }},
		{"already exiting", "[ 9.0] Memory cgroup out of memory: OOM victim 5 (x) is already exiting. Skip killing the task\n",
			func(e Event) bool { return e.Victim.AlreadyExiting && e.Victim.PID == 5 && !e.Incomplete }},
		{"mempolicy", "[ 9.0] oom-kill:constraint=CONSTRAINT_MEMORY_POLICY,nodemask=1,cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/,task=x,pid=5,uid=0\n[ 9.1] Out of memory: Killed process 5 (x) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n",
			func(e Event) bool {
				return e.Constraint == ConstraintMempolicy && !e.ConstraintInferred && e.MemsAllowed == "0-1"
			}},
	}
	for _, c := range cases {
		events := parseText(t, c.text, Options{})
		if len(events) != 1 || !c.check(events[0]) {
			t.Errorf("%s: %+v", c.name, events)
		}
	}
}

func TestTaskRowsWithSpacesAndPageSize(t *testing.T) {
	text := "Tasks state (memory values in pages):\n" +
		"[  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n" +
		"[   4242]  1000  4242   100000    50000   800000        7             0 Web Content\n" +
		"Out of memory: Killed process 4242 (Web Content) total-vm:6400000kB, anon-rss:3200000kB, file-rss:0kB, shmem-rss:0kB\n"
	e := one(t, parseText(t, text, Options{PageSize: 65536}))
	if len(e.Tasks) != 1 || e.Tasks[0].Name != "Web Content" || e.Tasks[0].RSSBytes != 50000*65536 || vu(e.Tasks[0].SwapBytes) != 7*65536 || vu(e.Tasks[0].PgtablesBytes) != 800000 {
		t.Errorf("tasks = %+v", e.Tasks)
	}
	if !strings.Contains(e.IncompleteReason, "after the trigger line") || e.Victim.Name != "Web Content" {
		t.Errorf("reason %q victim %+v", e.IncompleteReason, e.Victim)
	}
}

func TestSyslogYearRollover(t *testing.T) {
	text := "Dec 31 23:59:59 h kernel: Out of memory: Killed process 1 (a) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n" +
		"Jan  1 00:00:01 h kernel: Out of memory: Killed process 2 (b) total-vm:8kB, anon-rss:4kB, file-rss:0kB\n"
	events := parseText(t, text, Options{Year: 2025})
	if len(events) != 2 || events[1].Time.Wall.Year() != 2026 || events[0].Time.Wall.Year() != 2025 {
		t.Errorf("events = %+v", events)
	}
	noYear := parseText(t, text, Options{})
	if noYear[0].Time.Clock != ClockNone || noYear[0].Time.Raw != "Dec 31 23:59:59 h kernel:" {
		t.Errorf("without a year: %+v", noYear[0].Time)
	}
}

func TestBootTime(t *testing.T) {
	events := parseText(t, realText(t), Options{})
	boot := time.Date(2026, 11, 22, 21, 27, 39, 0, time.UTC)
	SetBootTime(events, boot)
	want := boot.Add(937485165 * time.Microsecond)
	if got := events[0].Time; got.Clock != ClockWall || !got.Wall.Equal(want) || !got.HasMonotonic {
		t.Errorf("after SetBootTime: %+v, want %v", got, want)
	}
	if got := MonotonicToWall(90*time.Second, boot); !got.Equal(boot.Add(90 * time.Second)) {
		t.Errorf("MonotonicToWall = %v", got)
	}
}

func TestNoEventsInOtherText(t *testing.T) {
	text := "[    1.2] EXT4-fs (vda): mounted filesystem\nNov 22 21:00:00 h sshd[12]: Killed process 5 (x) total-vm:8kB\n" +
		"[ 2.0] Mem-Info:\n[ 2.0] active_anon:1 inactive_anon:2 isolated_anon:0\n[ 2.0] 4 pages RAM\n"
	if events := parseText(t, text, Options{}); len(events) != 0 {
		t.Errorf("events = %+v", events)
	}
}

// A memory cgroup's usage line is printed only by an OOM report: alone, it
// is a cut-off report of a cgroup OOM, not nothing.
func TestLoneMemcgUsageIsACutReport(t *testing.T) {
	e := one(t, parseText(t, "[ 2.0] memory: usage 1kB, limit 2kB, failcnt 0\n", Options{}))
	if e.Constraint != ConstraintMemcg || e.Memcg.LimitBytes != 2048 || !e.Incomplete || e.Victim != nil {
		t.Errorf("event = %+v", e)
	}
}

// The real capture rewritten into the prefixes journalctl -k (short-precise)
// and rsyslog's kern.log would give it on a host in CET: the same event.
func TestRealReformattedAsJournalAndKernLog(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", realHog+"-dmesg-iso.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cet := time.FixedZone("CET", 3600)
	var journal, kernlog strings.Builder
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		stamp, msg, _ := strings.Cut(l, " ")
		ts, err := time.Parse("2006-01-02T15:04:05.999999Z07:00", strings.Replace(stamp, ",", ".", 1))
		if err != nil {
			t.Fatal(err)
		}
		local := ts.In(cet)
		journal.WriteString(local.Format("Jan _2 15:04:05.000000") + " db1 kernel: " + msg + "\n")
		kernlog.WriteString(local.Format(time.RFC3339Nano) + " db1 kernel: " + msg + "\n")
	}
	want := time.Date(2026, 11, 22, 21, 43, 16, 485165000, time.UTC)
	for name, text := range map[string]string{"journal": journal.String(), "kern.log": kernlog.String()} {
		e := one(t, parseText(t, text, Options{Year: 2026, Location: cet}))
		if !e.Time.Wall.Equal(want) || e.Victim.PID != 15970 || len(e.Tasks) != 1 || len(e.Lines) != 79 || e.Incomplete {
			t.Errorf("%s: time %v victim %+v tasks %d lines %d", name, e.Time.Wall, e.Victim, len(e.Tasks), len(e.Lines))
		}
	}
}

// vu and vi read optional figures in tests; -1 stands for "not printed".
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
