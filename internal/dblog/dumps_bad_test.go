package dblog

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// dumpLines returns the lines of the recorded PostgreSQL 16 dump (PID 1427):
// the header, the contexts and Grand total.
func dumpLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/postgresql-16-log-memory-contexts.log")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "[1427] LOG:  l") || strings.Contains(l, "[1427] LOG:  Grand") {
			out = append(out, l)
		}
	}
	if len(out) != 126 {
		t.Fatalf("%d dump lines in the fixture", len(out))
	}
	return out
}

func parseLines(t *testing.T, lines []string) []ContextDump {
	t.Helper()
	log, err := ParsePostgres(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	return log.ContextDumps
}

// withPID rewrites the PID of fixture lines.
func withPID(lines []string, pid string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Replace(l, "[1427]", "["+pid+"]", 1)
	}
	return out
}

func TestContextDumpCutAndRotated(t *testing.T) {
	lines := dumpLines(t)
	cases := []struct {
		name  string
		lines []string
		want  []string // each dump's problem, "" for complete
	}{
		{"whole", lines, []string{""}},
		{"cut at the end of the text", lines[:60], []string{"cut: the text read ends"}},
		{"rotated: starts in the middle", lines[40:], []string{"starts before the text read"}},
		{"only the grand total", lines[len(lines)-1:], []string{"only its Grand total"}},
		{"a line lost", append(append([]string{}, lines[:50]...), lines[51:]...), []string{"lines missing or mixed"}},
		{"restarted before its end", append(append([]string{}, lines[:30]...), lines...), []string{"cut: another dump of the same backend", ""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := parseLines(t, c.lines)
			if len(got) != len(c.want) {
				t.Fatalf("%d dumps, want %d: %+v", len(got), len(c.want), got)
			}
			for i, d := range got {
				if c.want[i] == "" && (!d.Complete || d.Problem != "") || c.want[i] != "" && (d.Complete || !strings.HasPrefix(d.Problem, c.want[i])) {
					t.Errorf("dump %d: complete %v problem %q, want %q", i, d.Complete, d.Problem, c.want[i])
				}
				if d.PID != 1427 {
					t.Errorf("dump %d: pid %d", i, d.PID)
				}
			}
		})
	}
}

// Two backends dumped at once: their lines interleave in the log. With
// %p in the prefix (or csvlog, jsonlog) each is assembled whole; without
// it neither is taken for complete.
func TestContextDumpsInterleaved(t *testing.T) {
	a, b := withPID(dumpLines(t), "2001"), withPID(dumpLines(t), "2002")
	var mixed []string
	for i := range a {
		mixed = append(mixed, a[i], b[i])
	}
	got := parseLines(t, mixed)
	if len(got) != 2 || !got[0].Complete || !got[1].Complete || got[0].PID != 2001 || got[1].PID != 2002 {
		t.Fatalf("with PIDs: %+v", summary(got))
	}
	var noPID []string
	for _, l := range mixed {
		noPID = append(noPID, strings.Replace(strings.Replace(l, " [2001]", "", 1), " [2002]", "", 1))
	}
	got = parseLines(t, noPID)
	if len(got) == 0 {
		t.Fatal("no dump")
	}
	for _, d := range got {
		if d.Complete {
			t.Errorf("without PIDs a dump was taken for complete: %+v", summary(got))
		}
	}
	// One after the other, without PIDs: each is whole.
	seq := append(append([]string{}, noPID[0:0]...), stripPIDs(a)...)
	seq = append(seq, stripPIDs(b)...)
	got = parseLines(t, seq)
	if len(got) != 2 || !got[0].Complete || !got[1].Complete || got[0].PID != 0 {
		t.Fatalf("sequential without PIDs: %+v", summary(got))
	}
}

func stripPIDs(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Replace(strings.Replace(l, " [2001]", "", 1), " [2002]", "", 1)
	}
	return out
}

func summary(ds []ContextDump) []string {
	var out []string
	for _, d := range ds {
		out = append(out, strings.Join([]string{d.TimeRaw, d.Problem}, " "))
	}
	return out
}

// The stderr dump written with an out-of-memory error and the LOG form
// are read by one parser: same numbers from the same statistics.
func TestParseContextLineForms(t *testing.T) {
	cases := []struct {
		line  string
		want  MemoryContext
		level int
		grand bool
	}{
		{"  ExecutorState: 8192 total in 1 blocks; 3504 free (0 chunks); 4688 used",
			MemoryContext{Name: "ExecutorState", Depth: 1, TotalBytes: 8192, Blocks: 1, FreeBytes: 3504, UsedBytes: 4688}, -1, false},
		{"level: 3; ExecutorState: 8192 total in 1 blocks; 3504 free (0 chunks); 4688 used",
			MemoryContext{Name: "ExecutorState", TotalBytes: 8192, Blocks: 1, FreeBytes: 3504, UsedBytes: 4688}, 3, false},
		{"level: 2; CachedPlanSource: 4096 total in 3 blocks; 1976 free (3 chunks); 2120 used: prepare q1 as select 1: x",
			MemoryContext{Name: "CachedPlanSource", Ident: "prepare q1 as select 1: x", TotalBytes: 4096, Blocks: 3, FreeBytes: 1976, FreeChunks: 3, UsedBytes: 2120}, 2, false},
		// generation
		{"level: 3; TupleSort tuples: 32768 total in 3 blocks (120 chunks); 1024 free (7 chunks); 31744 used",
			MemoryContext{Name: "TupleSort tuples", TotalBytes: 32768, Blocks: 3, FreeBytes: 1024, FreeChunks: 7, UsedBytes: 31744}, 3, false},
		// slab (16+)
		{"level: 2; ReorderBufferChange: 8192 total in 1 blocks; 1 empty blocks; 7552 free (80 chunks); 640 used",
			MemoryContext{Name: "ReorderBufferChange", TotalBytes: 8192, Blocks: 1, FreeBytes: 7552, FreeChunks: 80, UsedBytes: 640}, 2, false},
		// bump (17+)
		{"level: 4; Caller tuples: 65536 total in 4 blocks; 2000 free; 63536 used",
			MemoryContext{Name: "Caller tuples", TotalBytes: 65536, Blocks: 4, FreeBytes: 2000, UsedBytes: 63536}, 4, false},
		{"level: 2; 1434 more child contexts containing 3134464 total in 2843 blocks; 1041656 free (1049 chunks); 2092808 used",
			MemoryContext{MoreChildren: 1434, TotalBytes: 3134464, Blocks: 2843, FreeBytes: 1041656, FreeChunks: 1049, UsedBytes: 2092808}, 2, false},
		{"Grand total: 1819328 bytes in 211 blocks; 685664 free (148 chunks); 1133664 used",
			MemoryContext{Name: "Grand total", TotalBytes: 1819328, Blocks: 211, FreeBytes: 685664, FreeChunks: 148, UsedBytes: 1133664}, -1, true},
	}
	for _, c := range cases {
		l, ok := ParseContextLine(c.line)
		if !ok || l.MemoryContext != c.want || l.Level != c.level || l.Grand != c.grand {
			t.Errorf("%q:\n got %+v level %d grand %v ok %v\nwant %+v", c.line, l.MemoryContext, l.Level, l.Grand, ok, c.want)
		}
	}
	for _, bad := range []string{"", "level: 1; x", "ExecutorState: 1 total in blocks; 2 free (0 chunks); 3 used",
		"level: 99999; a: 1 total in 1 blocks; 0 free (0 chunks); 1 used", "Grand total: 1 bytes in 1 blocks; 0 free; 1 used"} {
		if l, ok := ParseContextLine(bad); ok {
			t.Errorf("%q parsed as %+v", bad, l)
		}
	}
	if s, ok := StripContextIdent("level: 2; CachedPlan: 1 total in 1 blocks; 0 free (0 chunks); 1 used: select secret"); !ok ||
		s != "level: 2; CachedPlan: 1 total in 1 blocks; 0 free (0 chunks); 1 used" {
		t.Errorf("stripped %q %v", s, ok)
	}
}

// "N more child contexts" is logged with its parent's level (PostgreSQL
// 14-18): it is given its children's depth, as the stderr form indents it.
func TestContextDumpMoreChildrenDepth(t *testing.T) {
	text := `2026-11-27 14:11:28.039 UTC [9] LOG:  level: 1; TopMemoryContext: 100 total in 1 blocks; 0 free (0 chunks); 100 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; CacheMemoryContext: 1000 total in 1 blocks; 0 free (0 chunks); 1000 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 3; index info: 10 total in 1 blocks; 0 free (0 chunks); 10 used: i1
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; 5 more child contexts containing 50 total in 5 blocks; 0 free (0 chunks); 50 used
2026-11-27 14:11:28.039 UTC [9] LOG:  level: 2; Timezones: 20 total in 1 blocks; 0 free (0 chunks); 20 used
2026-11-27 14:11:28.039 UTC [9] LOG:  Grand total: 1180 bytes in 9 blocks; 0 free (0 chunks); 1180 used
`
	log, err := ParsePostgres(strings.NewReader(text))
	if err != nil || len(log.ContextDumps) != 1 || !log.ContextDumps[0].Complete {
		t.Fatalf("%+v %v", log.ContextDumps, err)
	}
	var depths []int
	for _, c := range log.ContextDumps[0].Contexts {
		depths = append(depths, c.Depth)
	}
	if fmt.Sprint(depths) != "[0 1 2 2 1]" {
		t.Errorf("depths %v, want [0 1 2 2 1]", depths)
	}
}
