package postmortem

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
)

// Tests for each class of misreading issue 14 names, on the corpus of
// real reports (testdata/corpus) and, where no posted report shows a
// case, on hand-made text labelled as such.

func corpusReport(t *testing.T, names ...string) *Report {
	t.Helper()
	var logs []Log
	for _, n := range names {
		kind := KindKernel
		if strings.HasPrefix(n, "d") {
			kind = ""
		}
		l := corpusLog(t, "testdata/corpus/"+n+".truth.json", string(kind))
		if kind == "" {
			l.Kind = guessDBKind(l.Text)
		}
		logs = append(logs, l)
	}
	return Analyze(Input{Logs: logs, Zone: "UTC"})
}

func textOf(t *testing.T, r *Report) string {
	t.Helper()
	var b strings.Builder
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// No report of the corpus prints "pid 0", a measured-looking zero for a
// figure its log does not print, or a raw constraint value.
func TestCorpusTextNeverInventsZeros(t *testing.T) {
	pid0 := regexp.MustCompile(`\bpid 0\b|\(PID 0\)|limit of 0 B|about 0 B`)
	for _, p := range readCorpus(t) {
		name := strings.TrimSuffix(strings.TrimPrefix(p, "testdata/corpus/"), ".truth.json")
		text := textOf(t, corpusReport(t, name))
		if m := pid0.FindString(text); m != "" {
			t.Errorf("%s: text says %q:\n%s", name, m, text)
		}
		if strings.Contains(text, "CONSTRAINT_") || strings.Contains(text, "memcg,") {
			t.Errorf("%s: a raw constraint in the text:\n%s", name, text)
		}
	}
}

// A 2.6.24 kill line prints no memory figures: the text says so, the JSON
// has null, and no sentence derives what the kill gave back.
func TestFiguresNotPrintedAreNull(t *testing.T) {
	r := corpusReport(t, "k19-forum-2009-ubuntu-2.6.24-sabnzbd")
	text := textOf(t, r)
	for _, want := range []string{"not in the log: anon-rss, file-rss, shmem-rss, page tables, swap, total-vm, oom_score_adj, uid",
		"What the kill gave back is not in the log (this kill line prints no memory figures)", "trigger  SABnzbd.py pid 5795"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	var doc struct {
		Events []struct {
			Victim map[string]any `json:"victim"`
			Scope  map[string]any `json:"scope"`
		} `json:"events"`
	}
	var b bytes.Buffer
	if err := JSON(&b, r); err != nil || json.Unmarshal(b.Bytes(), &doc) != nil || len(doc.Events) != 1 {
		t.Fatalf("json: %v\n%s", err, b.String())
	}
	v := doc.Events[0].Victim
	for _, k := range []string{"rss_anon_bytes", "rss_file_bytes", "rss_shmem_bytes", "pgtables_bytes", "freed_bytes", "uid", "oom_score_adj"} {
		if val, ok := v[k]; !ok || val != nil {
			t.Errorf("victim.%s = %v (present %v), want null", k, val, ok)
		}
	}
	if val, ok := doc.Events[0].Scope["limit_bytes"]; !ok || val != nil {
		t.Errorf("scope.limit_bytes = %v, want null", val)
	}
}

// The trigger's pid comes from "CPU: n UID: u PID: p" (6.x) and the
// allocation is said to come from another process than the victim; with
// no pid printed, nothing is said about "the same process".
func TestTriggerAgainstVictim(t *testing.T) {
	r := corpusReport(t, "k13-relate-1383-debian-6.16.9-postgres-dmesg-T")
	n := strings.Join(r.Events[0].Notes, " ")
	if !strings.Contains(n, "The allocation came from postgres (pid 3589817); the kernel killed another process") {
		t.Errorf("notes = %q", n)
	}
	r = corpusReport(t, "k11-orioledb-394-ubuntu-5.15-shmem-pagetables-dmesg-T")
	n = strings.Join(r.Events[1].Notes, " ")
	if strings.Contains(n, "is the one that was killed") || !strings.Contains(n, "its pid is not in the log") {
		t.Errorf("notes = %q", n)
	}
}

// The machine's state is the headline when page tables dominate it.
func TestMemInfoHeadlinePageTables(t *testing.T) {
	x := corpusReport(t, "k11-orioledb-394-ubuntu-5.15-shmem-pagetables-dmesg-T").Events[1]
	if !strings.HasPrefix(x.Headline, "Page tables took 5.38 GiB (4.3% of the memory the report accounts for)") ||
		!strings.Contains(x.Headline, "huge pages") || !strings.Contains(x.Headline, "pooler") {
		t.Errorf("headline = %q", x.Headline)
	}
}

// Hand-made Mem-Info (the corpus has no posted report with a big pool):
// a 2 MiB pool holding 24 of 32 GiB, 20 GiB of it unused.
func TestMemInfoHeadlineHugePool(t *testing.T) {
	text := "[ 1.0] mysqld invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0\n" +
		"[ 1.0] Mem-Info:\n[ 1.0] active_anon:1000000 inactive_anon:10000 isolated_anon:0\n" +
		"[ 1.0]  active_file:1000 inactive_file:1000 isolated_file:0\n[ 1.0]  unevictable:0 dirty:0 writeback:0\n" +
		"[ 1.0]  slab_reclaimable:1000 slab_unreclaimable:2000\n[ 1.0]  mapped:100 shmem:100 pagetables:3000 bounce:0\n" +
		"[ 1.0]  free:20000 free_pcp:10 free_cma:0\n" +
		"[ 1.0] Node 0 hugepages_total=12288 hugepages_free=10240 hugepages_surp=0 hugepages_size=2048kB\n" +
		"[ 1.0] 8388608 pages RAM\n" +
		"[ 1.0] Out of memory: Killed process 7 (mysqld) total-vm:9000000kB, anon-rss:4000000kB, file-rss:0kB, shmem-rss:0kB, UID:27 pgtables:8000kB oom_score_adj:0\n"
	r := Analyze(Input{Logs: []Log{{Kind: KindKernel, Source: "hand-made", State: StateRead, Text: []byte(text)}}})
	x := r.Events[0]
	if x.Machine == nil || vu(x.Machine.HugePoolBytes) != 24<<30 || vu(x.Machine.HugeFreeBytes) != 20<<30 ||
		!strings.HasPrefix(x.Headline, "The huge page pool held 24 GiB (75.0% of RAM), of which 20 GiB unused") {
		t.Errorf("machine %+v headline %q", x.Machine, x.Headline)
	}
	if !hasAdvice(r, "postmortem.machine_huge_page_pool") {
		t.Errorf("advice = %+v", r.Advice)
	}
}

// Syslog stamps print no year: a copied file's is unknown (its time says
// when it was copied), this host's file takes its modification time, and
// a journal header in the same text gives it.
func TestYearKnownOrSaidUnknown(t *testing.T) {
	l := corpusLog(t, "testdata/corpus/k12-wordops-543-ubuntu-mariadbd-syslog.truth.json", "kernel")
	l.ModTime = time.Date(2023, 7, 2, 0, 0, 0, 0, time.UTC)
	x := Analyze(Input{Logs: []Log{l}}).Events[0]
	if x.Time != nil || x.YearFrom != yearUnknown {
		t.Errorf("given file: time %v year from %q", x.Time, x.YearFrom)
	}
	if s := textOf(t, Analyze(Input{Logs: []Log{l}})); !strings.Contains(s, "Jun 27 03:48:40 (year unknown)") {
		t.Errorf("text:\n%s", s)
	}
	mine := Analyze(Input{Logs: []Log{l}, ThisHost: HostID{Name: "SF-mysite-2"}}).Events[0]
	if mine.Time == nil || mine.Time.Year() != 2023 || mine.YearFrom != yearFromModTime || !mine.FromThisHost {
		t.Errorf("this host's file: time %v from %q this host %v", mine.Time, mine.YearFrom, mine.FromThisHost)
	}
	l.Text = append([]byte("-- Logs begin at Sun 2022-06-26 10:00:00 UTC, end at Mon 2022-06-27 04:00:00 UTC. --\n"), l.Text...)
	j := Analyze(Input{Logs: []Log{l}}).Events[0]
	if j.Time == nil || j.Time.Year() != 2022 || j.YearFrom != yearFromDatedLine {
		t.Errorf("journal header: time %v from %q", j.Time, j.YearFrom)
	}
}

// A log that is not this host's gets advice from the log alone; this
// host's findings appear only for its own logs, in their own section.
func TestThisHostFindingsOnlyForItsOwnLogs(t *testing.T) {
	fs := []finding.Finding{{ID: "overcommit.mode", Subject: "host", Title: "heuristic overcommit"}}
	given := corpusLog(t, "testdata/corpus/k12-wordops-543-ubuntu-mariadbd-syslog.truth.json", "kernel")
	r := Analyze(Input{Logs: []Log{given}, Findings: fs, FindingsAbout: "this host as it is now", ThisHost: HostID{Name: "vm", Kernel: "6.18.44"}})
	if r.ThisHost != nil || !strings.Contains(r.ThisHostWhy, "a file given on the command line") || r.Events[0].FromThisHost {
		t.Errorf("given file: this host %+v why %q", r.ThisHost, r.ThisHostWhy)
	}
	if s := textOf(t, r); strings.Contains(s, "overcommit.mode") || !strings.Contains(s, "not this host's") {
		t.Errorf("text:\n%s", s)
	}
	own := given
	own.Given, own.Source = false, "/var/log/syslog"
	other := Analyze(Input{Logs: []Log{own}, Findings: fs, ThisHost: HostID{Name: "vm"}})
	if other.ThisHost != nil || !strings.Contains(other.Events[0].Origin, "its lines name host SF-mysite-2; this host is vm") {
		t.Errorf("syslog of another host: %+v %q", other.ThisHost, other.Events[0].Origin)
	}
	mine := Analyze(Input{Logs: []Log{own}, Findings: fs, FindingsAbout: "this host as it is now", ThisHost: HostID{Name: "sf-mysite-2.example.com"}})
	if mine.ThisHost == nil || len(mine.ThisHost.Findings) != 1 || !mine.Events[0].FromThisHost {
		t.Errorf("own syslog: this host %+v", mine.ThisHost)
	}
	if s := textOf(t, mine); !strings.Contains(s, "This host (this host as it is now), for the events of its own logs") {
		t.Errorf("text:\n%s", s)
	}
}

// An over-long line before a report is skipped and counted; the report after it
// is read, in a kernel log and in a database log.
func TestLongLineBeforeAReport(t *testing.T) {
	// 5 MiB: over both limits (1 MiB per kernel line, 4 MiB per database line).
	long := strings.Repeat("A", 5<<20) + "\n"
	k := corpusLog(t, "testdata/corpus/k12-wordops-543-ubuntu-mariadbd-syslog.truth.json", "kernel")
	k.Text = append([]byte(long), k.Text...)
	d := corpusLog(t, "testdata/corpus/d16-sclorg-396-pg-openshift-no-timestamps.truth.json", "postgresql")
	d.Text = append([]byte(long), d.Text...)
	r := Analyze(Input{Logs: []Log{k, d}})
	if r.Kills != 1 || r.Sources[0].LongLines != 1 || r.Sources[1].LongLines != 1 || r.Sources[1].Crashes != 1 {
		t.Errorf("kills %d, long lines %d and %d, crashes %d", r.Kills, r.Sources[0].LongLines, r.Sources[1].LongLines, r.Sources[1].Crashes)
	}
	if s := textOf(t, r); !strings.Contains(s, "1 over-long line skipped") {
		t.Errorf("text does not say a line was skipped:\n%s", s)
	}
}

// Strings from logs are printed inert: a process name, a cgroup path and
// a query carrying terminal escapes.
func TestLogStringsPrintedInert(t *testing.T) {
	kernel := "[ 9.0] oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,oom_memcg=/evil\x1b]0;PWN\x07,task_memcg=/evil,task=x,pid=5,uid=0\n" +
		"[ 9.0] Memory cgroup out of memory: Killed process 5 (\x1b[2Jpostgres) total-vm:8kB, anon-rss:4kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:4kB oom_score_adj:0\n"
	db := "2026-01-01 00:00:00 UTC [1] LOG:  server process (PID 5) was terminated by signal 9: Killed\n" +
		"2026-01-01 00:00:00 UTC [1] DETAIL:  Failed process was running: SELECT '\x1b]52;c;cm0gLXJmIH4=\x07'\n"
	r := Analyze(Input{Logs: []Log{{Kind: KindKernel, Source: "k", State: StateRead, Text: []byte(kernel)},
		{Kind: KindPostgres, Source: "p", State: StateRead, Text: []byte(db)}}})
	s := textOf(t, r)
	if strings.ContainsAny(s, "\x1b\x07") || !strings.Contains(s, `\x1b[2Jpostgres`) || !strings.Contains(s, `SELECT '\x1b]52;c;cm0gLXJmIH4=\x07'`) {
		t.Errorf("text is not inert:\n%q", s)
	}
}
