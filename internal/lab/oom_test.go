package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
)

// oomHostState is what `lab oom` may touch; it must be the same after.
type oomHostState struct {
	Overcommit, Ratio, KBytes, NrHugepages string
	Cgroups, Postmasters                   int
	JournalExists                          bool
}

func readOOMHostState(t *testing.T, base, journal string) oomHostState {
	t.Helper()
	get := func(name string) string {
		v, err := linux.ReadSysctl(linux.DefaultFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	s := oomHostState{Overcommit: get("vm.overcommit_memory"), Ratio: get("vm.overcommit_ratio"),
		KBytes: get("vm.overcommit_kbytes"), NrHugepages: get("vm.nr_hugepages")}
	s.Cgroups = len(labCgroups())
	s.Postmasters = len(postmastersUnder(t, base))
	_, err := os.Stat(journal)
	s.JournalExists = err == nil
	return s
}

// labCgroups lists the memory cgroups this process's lab runs made
// (dbmem-lab-oom-<PID>) anywhere under /sys/fs/cgroup.
func labCgroups() []string {
	var out []string
	want := CgroupPrefix + strconv.Itoa(os.Getpid())
	filepath.WalkDir("/sys/fs/cgroup", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && filepath.Base(p) == want {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestQuickOOM runs `dbmem lab oom --quick` against real PostgreSQL in a
// real memory cgroup: the kernel kills the runaway backend inside the
// cgroup, the postmaster terminates every session and restarts, the
// post-mortem explains the kill; with the emulated protection the query
// fails with "out of memory" and every session stays. Every kernel
// setting and the cgroup are as before afterwards. Its duration is logged,
// not asserted (the budget is 2 minutes on the 2-core test machine).
func TestQuickOOM(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab oom needs root (memory cgroup, kernel log)")
	}
	kerneltest.Lock(t)
	base, journal := labDirs(t)
	before := readOOMHostState(t, base, journal)
	start := time.Now()
	res, err := RunOOM(context.Background(), OOMOptions{Common: Common{Quick: true, BaseDir: base, JournalPath: journal, Progress: NewProgress(testLog{t}, false)}})
	t.Logf("lab oom --quick took %s (budget: 2 minutes on the test machine)", time.Since(start).Round(time.Second))
	if err != nil {
		t.Fatalf("lab oom --quick: %v", err)
	}
	if after := readOOMHostState(t, base, journal); after != before {
		t.Errorf("host changed by the lab: before %+v, after %+v", before, after)
	}
	checkOOMRestored(t, res, base)
	checkKilled(t, res, res.Unprotected)
	checkRefused(t, res.Protected)
	checkEmulationSaid(t, res)
	if dir := os.Getenv("DBMEM_LAB_OOM_RECORD"); dir != "" {
		recordOOM(t, res, dir)
	}
}

func checkOOMRestored(t *testing.T, r *OOMResult, base string) {
	t.Helper()
	if len(r.Restored) < 2 {
		t.Errorf("restored %+v: want the cluster and the memory cgroup", r.Restored)
	}
	for _, x := range r.Restored {
		if !x.OK || x.After != x.Before {
			t.Errorf("not restored: %+v", x)
		}
	}
	if r.Cgroup == nil {
		t.Fatal("no memory cgroup in the result")
	}
	if _, err := os.Stat(r.Cgroup.Dir); !os.IsNotExist(err) {
		t.Errorf("memory cgroup %s left: %v", r.Cgroup.Dir, err)
	}
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("cluster directory left in %s: %v", base, ents)
	}
}

// checkKilled: the kernel killed the runaway backend inside the lab's
// cgroup, the postmaster took every session down and came back, and the
// post-mortem explains it.
func checkKilled(t *testing.T, r *OOMResult, u *OOMRun) {
	t.Helper()
	if u == nil || u.Outcome != OutcomeKilled {
		t.Fatalf("unprotected run: %+v, want the runaway killed", u)
	}
	if !strings.Contains(u.KillLine, "Killed process "+strconv.Itoa(u.QueryPID)+" ") {
		t.Errorf("kill line %q does not name the runaway backend %d", u.KillLine, u.QueryPID)
	}
	if u.OOMKills == nil || *u.OOMKills != 1 {
		t.Errorf("the cgroup counted %v OOM kills, want 1", u.OOMKills)
	}
	s := u.Sessions
	if s.Lost != s.Open || s.PgbenchAborted != s.PgbenchClients || s.IdleLost != s.Idle || !s.RunawayLost {
		t.Errorf("sessions %+v: want every session lost", s)
	}
	log := strings.Join(u.ServerLog, "\n")
	for _, want := range []string{"server process (PID " + strconv.Itoa(u.QueryPID) + ") was terminated by signal 9",
		"terminating any other active server processes", "all server processes terminated; reinitializing", "ready to accept connections"} {
		if !strings.Contains(log, want) {
			t.Errorf("the server log lacks %q:\n%s", want, log)
		}
	}
	if u.ReadyAfter == nil || *u.ReadyAfter <= 0 || u.ServerDowntime == nil {
		t.Errorf("time until ready %v, server downtime %v: want both", u.ReadyAfter, u.ServerDowntime)
	}
	checkTPS(t, u)
	if !u.Verdict.Explains || !strings.Contains(u.Verdict.Summary, r.Cgroup.Path) {
		t.Errorf("the post-mortem does not explain the kill: %+v\n%s", u.Verdict, u.PostmortemText)
	}
}

// checkRefused: the protected query failed with "out of memory", nothing
// was killed, every session stayed, the server logged no crash.
func checkRefused(t *testing.T, p *OOMRun) {
	t.Helper()
	if p == nil || p.Outcome != OutcomeOutOfMemory || !strings.Contains(p.QueryError, "out of memory") {
		t.Fatalf("protected run: %+v, want \"out of memory\"", p)
	}
	if p.OOMKills == nil || *p.OOMKills != 0 || p.KillLine != "" {
		t.Errorf("protected run: %v OOM kills, kill line %q: want none", p.OOMKills, p.KillLine)
	}
	if p.Sessions.Lost != 0 || p.Sessions.RunawayLost {
		t.Errorf("protected run lost sessions: %+v", p.Sessions)
	}
	for _, l := range p.ServerLog {
		if strings.Contains(l, "terminated by signal") || strings.Contains(l, "reinitializing") {
			t.Errorf("the protected server crashed: %s", l)
		}
	}
	checkTPS(t, p)
	if !p.Verdict.Explains {
		t.Errorf("the post-mortem does not explain the protected run: %+v\n%s", p.Verdict, p.PostmortemText)
	}
}

// checkTPS: pgbench reported before, during and after the query. Values
// are logged, not judged: the host is shared.
func checkTPS(t *testing.T, x *OOMRun) {
	t.Helper()
	if x.TPS.Before == nil || x.TPS.During == nil || x.TPS.After == nil || *x.TPS.Before <= 0 || *x.TPS.After <= 0 {
		t.Errorf("%s: TPS %s before, %s during, %s after: want all measured", x.Name, tpsCell(x.TPS.Before), tpsCell(x.TPS.During), tpsCell(x.TPS.After))
		return
	}
	t.Logf("%s: %s after %s; TPS %.0f before, %.0f during, %.0f after; sessions %+v", x.Name, x.Outcome,
		x.QueryEnd.Sub(x.QueryStart).Round(time.Millisecond), *x.TPS.Before, *x.TPS.During, *x.TPS.After, x.Sessions)
}

// checkEmulationSaid: the text and the JSON say plainly that the
// protection was emulated and how the real setting differs.
func checkEmulationSaid(t *testing.T, r *OOMResult) {
	t.Helper()
	p := r.Protection
	if p == nil || p.Real || len(p.Differs) == 0 || p.AddressSpaceLimitBytes != p.BackendVmSizeBytes+p.BudgetBytes || p.Ratio != 80 {
		t.Fatalf("protection %+v: want the emulation sized with ratio 80", p)
	}
	var out bytes.Buffer
	if err := OOMText(&out, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range append([]string{"EMULATED", "protected (EMULATED strict overcommit)", "Next to the field report", "536870912"}, p.Differs...) {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	b, _ := json.Marshal(r)
	if !bytes.Contains(b, []byte(`"real":false`)) || !bytes.Contains(b, []byte(`"method":"emulated`)) {
		t.Errorf("the JSON does not say the protection was emulated")
	}
	t.Logf("summary:\n%s", out.String())
}

// recordOOM writes the result as `dbmem lab oom --json` does and the logs
// the post-mortem read, as fixtures.
func recordOOM(t *testing.T, r *OOMResult, dir string) {
	t.Helper()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"result.json": string(b) + "\n",
		"unprotected-kernel.txt": r.Unprotected.kernelText, "unprotected-server.log": r.Unprotected.serverText,
		"protected-kernel.txt": r.Protected.kernelText, "protected-server.log": r.Protected.serverText}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("recorded into %s (cgroup %s, runaway PIDs %d and %d)", dir, r.Cgroup.Path, r.Unprotected.QueryPID, r.Protected.QueryPID)
}

// TestStrictOvercommitForReal (DBMEM_LAB_STRICT_OVERCOMMIT=1 only) runs
// `dbmem lab oom --quick --strict-overcommit`. Where the lab cannot prove
// it safe (this project's shared test host runs Redis, RabbitMQ, MariaDB
// and PostgreSQL), it must refuse before changing anything and name why;
// on a dedicated host it sets vm.overcommit_memory=2 for the query only,
// the query fails with "out of memory", and both settings are back after.
func TestStrictOvercommitForReal(t *testing.T) {
	if os.Getenv("DBMEM_LAB_STRICT_OVERCOMMIT") != "1" {
		t.Skip("sets vm.overcommit_memory=2 on the host when it can prove it safe: set DBMEM_LAB_STRICT_OVERCOMMIT=1 to run it")
	}
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab oom needs root")
	}
	kerneltest.Lock(t)
	base, journal := labDirs(t)
	before := readOOMHostState(t, base, journal)
	res, err := RunOOM(context.Background(), OOMOptions{StrictOvercommit: true, Common: Common{Quick: true, BaseDir: base, JournalPath: journal,
		Progress: NewProgress(testLog{t}, false)}})
	if after := readOOMHostState(t, base, journal); after != before {
		t.Errorf("host changed by the lab: before %+v, after %+v", before, after)
	}
	if err != nil && strings.Contains(err.Error(), "--strict-overcommit refused, nothing was changed") {
		if res.Cgroup != nil || len(res.Restored) != 0 {
			t.Errorf("refused, yet something was created: %+v", res.Restored)
		}
		t.Logf("refused as it should on a shared host: %v", err)
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	checkKilled(t, res, res.Unprotected)
	checkRefused(t, res.Protected)
	if p := res.Protection; p == nil || !p.Real || p.Strict == nil || !p.Strict.Safe() || res.Protected.Commit == nil {
		t.Errorf("protection %+v: want strict overcommit set for real, watched", p)
	}
	t.Logf("%s", strictSummary(res.Protected.Commit, res.Protection.Strict.HeadroomBytes))
}
