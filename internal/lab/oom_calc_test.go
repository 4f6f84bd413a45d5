package lab

import (
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/units"
)

func TestParseProgress(t *testing.T) {
	for _, c := range []struct {
		line string
		ok   bool
		sec  float64
		tps  float64
	}{
		{"progress: 1795593553.947 s, 3085.0 tps, lat 1.273 ms stddev 0.412, 0 failed", true, 1795593553.947, 3085}, // PostgreSQL 15
		{"progress: 1795593554.947 s, 0.0 tps, lat 0.000 ms stddev 0.000", true, 1795593554.947, 0},                 // before 15
		{"progress: 5.0 s, 2291.8 tps, lat 1.715 ms stddev 0.960, 0 failed", true, 5, 2291.8},                       // without --progress-timestamp
		{"progress: 1795593553.947 s, -3.0 tps", false, 0, 0},
		{"pgbench: error: client 0 aborted in command 8 (SQL) of script 0; perhaps the backend died while processing", false, 0, 0},
		{"starting vacuum...end.", false, 0, 0},
		{"progress: nan s, 1 tps", false, 0, 0},
	} {
		s, ok := parseProgress(c.line)
		if ok != c.ok || ok && (math.Abs(float64(s.At.UnixNano())/1e9-c.sec) > 1e-3 || s.TPS != c.tps) {
			t.Errorf("parseProgress(%q) = %+v, %v", c.line, s, ok)
		}
	}
	for line, want := range map[string]int{
		"pgbench: error: client 3 aborted in command 4 (SQL) of script 0; perhaps the backend died while processing": 3,
		"client 12 aborted in command 10 (SQL) of script 0; perhaps the backend died while processing":               12, // PostgreSQL 12
	} {
		if n, ok := abortedClient(line); !ok || n != want {
			t.Errorf("abortedClient(%q) = %d, %v; want %d", line, n, ok, want)
		}
	}
	if _, ok := abortedClient("pgbench: error: Run was aborted; the above results are incomplete."); ok {
		t.Error("the run's summary counted as a client")
	}
}

func FuzzParseProgress(f *testing.F) {
	f.Add("progress: 1795593553.947 s, 3085.0 tps, lat 1.273 ms stddev 0.412, 0 failed")
	f.Add("client 1 aborted in command 2")
	f.Fuzz(func(t *testing.T, s string) {
		if x, ok := parseProgress(s); ok && (x.TPS < 0 || x.At.IsZero()) {
			t.Errorf("%q -> %+v", s, x)
		}
		abortedClient(s)
	})
}

// TestTPSOver: each report covers the second before it; a window counts
// the overlap, seconds without a report (the server down) count as none.
func TestTPSOver(t *testing.T) {
	t0 := time.Unix(1_800_000_000, 0)
	var ss []TPSSample
	for i := 1; i <= 10; i++ {
		if i == 6 || i == 7 {
			continue // the server was down
		}
		ss = append(ss, TPSSample{At: t0.Add(time.Duration(i) * time.Second), TPS: float64(100 * i)})
	}
	for _, c := range []struct {
		from, to float64
		want     float64
		none     bool
	}{
		{0, 5, 300, false},     // (100+200+300+400+500)/5
		{4.5, 5, 500, false},   // inside the fifth second
		{4.5, 5.5, 250, false}, // half of 500, then nothing
		{5, 7, 0, false},       // down: no report, but the window is covered by reports on neither side... see none below
		{10, 12, 0, true},      // after the last report
		{3, 3, 0, true},        // empty window
	} {
		got := tpsOver(ss, t0.Add(time.Duration(c.from*1e9)), t0.Add(time.Duration(c.to*1e9)))
		if c.none || c.from == 5 && c.to == 7 {
			if got != nil {
				t.Errorf("tpsOver(%v..%v) = %v, want none", c.from, c.to, *got)
			}
			continue
		}
		if got == nil || math.Abs(*got-c.want) > 1e-6 {
			t.Errorf("tpsOver(%v..%v) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	p := phases(ss, t0.Add(5*time.Second), t0.Add(8*time.Second), t0.Add(8*time.Second))
	if p.Before == nil || *p.Before != 300 || p.During == nil || math.Abs(*p.During-800.0/3) > 1e-6 || p.After == nil || *p.After != 950 {
		t.Errorf("phases = %v %v %v; want 300, 266.7 (the restart counts as no transactions), 950", tpsCell(p.Before), tpsCell(p.During), tpsCell(p.After))
	}
}

// TestPlanEmulation: a 1 GiB machine without swap or huge pages keeps 20%
// for the page cache: ratio 80, CommitLimit 209,715 pages of 4 KiB (the
// kernel counts whole pages: 262,144 x 80 / 100, rounded down); what the cluster
// committed is taken off, the rest is a backend's budget on top of its
// VmSize. The figures are those of the recorded quick run.
func TestPlanEmulation(t *testing.T) {
	p, err := planEmulation(units.GiB, 248_512_512, 291_504_128)
	if err != nil {
		t.Fatal(err)
	}
	cl := uint64(209_715 * 4096)
	if p.Ratio != 80 || p.CommitLimitBytes != cl || p.BudgetBytes != cl-248_512_512 || p.AddressSpaceLimitBytes != 291_504_128+p.BudgetBytes || p.Real {
		t.Errorf("plan = %+v", p)
	}
	if len(p.Differs) < 3 || !strings.Contains(p.Differs[0], "emulation") {
		t.Errorf("the plan does not say how it differs from the real setting: %q", p.Differs)
	}
	if _, err := planEmulation(units.GiB, 800<<20, 300<<20); err == nil || !strings.Contains(err.Error(), "--limit") {
		t.Errorf("a cluster committing more than CommitLimit: %v, want an error naming --limit", err)
	}
	if want := advise.CommitLimit(units.GiB, 0, 0, 80); want != cl {
		t.Errorf("advise.CommitLimit = %d, want %d", want, cl)
	}
}

// thisHostOthers are processes this project's shared test host runs
// (Debian 12, November 2026): Redis, RabbitMQ's Erlang VM, MariaDB, the
// host's PostgreSQL 15, and an engineer's Go linker.
var thisHostOthers = []OtherProcess{
	{2225, "redis-server", 7 << 20}, {2961, "beam.smp", 110 << 20}, {3807, "mariadbd", 100 << 20},
	{2206, "postgres", 3 << 20}, {28762, "link", 170 << 20}, {1, "process_api", 2 << 20}, {2966, "mosquitto", 3 << 20},
}

func dedicatedInput() StrictInput {
	return StrictInput{MemTotalBytes: 24 * units.GiB, MemAvailableBytes: 22 * units.GiB, CommittedMaxBytes: 2 * units.GiB,
		Mode: "0", Ratio: "50", KBytes: "0", HeadroomBytes: DefaultHeadroom, BudgetBytes: 600 << 20,
		Others: []OtherProcess{{1, "systemd", 8 << 20}, {400, "sshd", 2 << 20}, {401, "cron", 1 << 20}}}
}

// TestPlanStrict: strict overcommit is set for real only on a host where
// nothing else could be refused memory when the runaway query reaches
// CommitLimit, with the smallest ratio that holds the Committed_AS seen,
// the headroom and the query's budget.
func TestPlanStrict(t *testing.T) {
	p := planStrict(dedicatedInput())
	want := 2*units.GiB + DefaultHeadroom + 600<<20
	if !p.Safe() || p.CommitLimitBytes < want || advise.CommitLimit(24*units.GiB, 0, 0, p.Ratio-1) >= want {
		t.Errorf("dedicated host: %+v; want safe, the smallest ratio with CommitLimit >= %d", p, want)
	}
	shared := dedicatedInput()
	shared.Others = thisHostOthers
	p = planStrict(shared)
	for _, name := range []string{"redis-server (PID 2225", "beam.smp (PID 2961", "mariadbd", "postgres (PID 2206", "link (PID 28762: 170 MiB"} {
		if p.Safe() || !strings.Contains(strings.Join(p.Refusals, " "), name) {
			t.Errorf("this host: refusals %q lack %q", p.Refusals, name)
		}
	}
	if strings.Contains(strings.Join(p.Refusals, " "), "mosquitto") {
		t.Errorf("a 3 MiB daemon refused the plan: %q", p.Refusals)
	}
	if p.HeadroomBytes != 170<<20 && p.HeadroomBytes != DefaultHeadroom {
		t.Errorf("headroom %d", p.HeadroomBytes)
	}
	for name, change := range map[string]func(*StrictInput){
		"already strict":    func(in *StrictInput) { in.Mode = "2" },
		"overcommit_kbytes": func(in *StrictInput) { in.KBytes = "1048576" },
		"ratio 1":           func(in *StrictInput) { in.CommittedMaxBytes = 23 * units.GiB },
		"MemAvailable":      func(in *StrictInput) { in.MemAvailableBytes = 2 * units.GiB },
	} {
		in := dedicatedInput()
		change(&in)
		if p := planStrict(in); p.Safe() {
			t.Errorf("%s: the plan is safe: %+v", name, p)
		}
	}
	big := dedicatedInput()
	big.Others = append(big.Others, OtherProcess{500, "myapp", 3 * units.GiB})
	if p := planStrict(big); p.Safe() || p.HeadroomBytes != 3*units.GiB {
		t.Errorf("a 3 GiB process: %+v; want refused and the headroom raised to it", p)
	}
}

// TestStrictRefusedOnThisHost reads the live host as --strict-overcommit
// would (nothing is changed) and checks that a host running a database,
// Redis or an Erlang VM is refused, naming them.
func TestStrictRefusedOnThisHost(t *testing.T) {
	in, err := overcommitInput(linuxFS(), 0)
	if err != nil {
		t.Fatal(err)
	}
	in.Others = othersThan(linuxFS(), 0)
	in.HeadroomBytes, in.BudgetBytes = DefaultHeadroom, 600<<20
	if !slices.ContainsFunc(in.Others, func(o OtherProcess) bool { return o.PID == 1 }) {
		t.Fatalf("PID 1 is not among the %d processes outside the lab: the host's processes were not all read", len(in.Others))
	}
	var fragileHere []string
	for _, o := range in.Others {
		if _, ok := fragile[o.Name]; ok {
			fragileHere = append(fragileHere, o.Name)
		}
	}
	p := planStrict(in)
	if len(fragileHere) == 0 {
		t.Skipf("no database, cache or broker runs on this host; plan: %+v", p)
	}
	if p.Safe() {
		t.Fatalf("strict overcommit judged safe on a host running %v", fragileHere)
	}
	for _, name := range fragileHere {
		if !strings.Contains(strings.Join(p.Refusals, " "), name) {
			t.Errorf("the refusal does not name %s: %q", name, p.Refusals)
		}
	}
	t.Logf("refused: %s", refusal(p))
}

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/oom/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The recorded quick run (kernel 6.18.44, PostgreSQL 15.20, cgroup v1).
const (
	recordedCgroup    = "/process_api/ff5e1e5457f183fad60e553b28228951/dbmem-lab-oom-8977"
	recordedKilled    = 11770
	recordedProtected = 12891
)

func TestEventLines(t *testing.T) {
	got := eventLines(readFixture(t, "unprotected-server.log"))
	want := []string{"was terminated by signal 9: Killed", "Failed process was running: EXPLAIN", "terminating any other active server processes",
		"all server processes terminated; reinitializing", "database system was interrupted", "automatic recovery in progress", "redo done at",
		"database system is ready to accept connections"}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("line %d %q lacks %q", i, got[i], w)
		}
	}
	p := eventLines(readFixture(t, "protected-server.log"))
	if len(p) != 2 || !strings.Contains(p[0], "ERROR:  out of memory") || !strings.Contains(p[1], "Failed on request of size") {
		t.Errorf("protected: %q", p)
	}
}
