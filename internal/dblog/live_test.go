package dblog_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/oomlog"
	"github.com/dbmem/dbmem/internal/oomlog/memcgtest"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestRootLivePostgresBackendOOMKill (root only) moves one backend into a
// 128 MiB memory cgroup, runs a sort with work_mem 2GB in it, and checks
// that the kernel's kill and PostgreSQL's crash restart pair up by PID.
func TestRootLivePostgresBackendOOMKill(t *testing.T) {
	g := memcgtest.New(t, 128<<20) // created first: removed after the server stops
	c := pgtest.Start(t, nil)
	kill := pgtest.OOMKillBackend(t, g, c, "pg")
	pgText := waitLog(t, c, "database system is ready to accept connections", 2)
	checkLivePair(t, kill.Kernel, pgText, kill.PID)
	if dblog.Recording() {
		recordPG(t, kill.Mark, pgText)
	}
}

// waitLog waits until the server log holds want n times and returns it.
func waitLog(t *testing.T, c *pgcluster.Cluster, want string, n int) string {
	t.Helper()
	for end := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		b, _ := os.ReadFile(c.LogFile)
		if strings.Count(string(b), want) >= n {
			return string(b)
		}
		if time.Now().After(end) {
			t.Fatalf("%q not %d times in the server log:\n%s", want, n, b)
		}
	}
}

func checkLivePair(t *testing.T, kernelText, pgText string, pid int) {
	t.Helper()
	events, err := oomlog.Parse(strings.NewReader(kernelText))
	if err != nil || len(events) != 1 || events[0].Victim == nil || events[0].Victim.PID != pid {
		t.Fatalf("kernel events %+v (%v), want one killing %d:\n%s", events, err, pid, kernelText)
	}
	log, err := dblog.ParsePostgres(strings.NewReader(pgText))
	if err != nil || len(log.Crashes) != 1 {
		t.Fatalf("crashes %+v (%v):\n%s", log.Crashes, err, pgText)
	}
	cr := log.Crashes[0]
	if pv(cr.KilledPID) != pid || pv(cr.Signal) != 9 || cr.SignalName != "Killed" || cr.Process != "server process" ||
		!strings.Contains(cr.Query, "generate_series") || cr.Incomplete || cr.ReadyAt.IsZero() || cr.ReinitializedAt.IsZero() {
		t.Errorf("crash = %+v", cr)
	}
	// The kernel stamps are seconds since boot: give them the boot time.
	oomlog.SetBootTime(events, bootTime(t))
	pairs := dblog.Match(events, log.Crashes, 5*time.Second)
	if len(pairs) != 1 || pairs[0].By != dblog.ByPID || !pairs[0].Certain || abs(pairs[0].Delta) > 5*time.Second {
		t.Errorf("pairs = %+v", pairs)
	}
}

// bootTime reads btime from /proc/stat.
func bootTime(t *testing.T) time.Time {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return time.Unix(n, 0)
		}
	}
	t.Fatal("no btime in /proc/stat")
	return time.Time{}
}

func recordPG(t *testing.T, mark memcgtest.Marker, pgText string) {
	t.Helper()
	rel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	base := filepath.Join("..", "oomlog", "testdata", "pg-backend-memcg-v1-kernel-"+strings.TrimSpace(string(rel)))
	for suffix, args := range map[string][]string{"-dmesg.txt": nil, "-dmesg-iso.txt": {"--time-format", "iso"}} {
		text, err := mark.Since(args...)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, base+suffix, text)
	}
	writeFile(t, filepath.Join("testdata", "postgresql-15-backend-oom-kill-stderr.log"), pgText)
}

func writeFile(t *testing.T, p, text string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("recorded %s", p)
}

func pv(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
