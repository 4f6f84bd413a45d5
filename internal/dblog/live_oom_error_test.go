package dblog_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestRootLivePostgresOutOfMemoryError (root only) caps one backend's
// address space with prlimit --as, so that its big sort fails with
// "ERROR: out of memory" instead of being killed, and parses the error and
// the memory context dump from the stderr, csvlog and jsonlog files.
func TestRootLivePostgresOutOfMemoryError(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("prlimit on a postgres backend needs root")
	}
	c := pgtest.Start(t, map[string]string{
		"logging_collector": "on", "log_destination": "stderr,csvlog,jsonlog",
		"log_directory": "log", "log_filename": "postgresql.log",
	})
	conn, pid := pgtest.Backend(t, c)
	limitAddressSpace(t, pid, 256<<20)
	err := pgtest.RunBigSort(conn)
	if err == nil || !strings.Contains(err.Error(), "out of memory") {
		t.Fatalf("want ERROR out of memory, got %v", err)
	}
	conn.Exec(context.Background(), "SELECT pg_sleep(0.5)") // the session survives; let the collector write
	dir := filepath.Join(c.DataDir, "log")
	for _, f := range []string{"postgresql.log", "postgresql.csv", "postgresql.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		checkOOMError(t, f, string(b), pid)
		if dblog.Recording() {
			writeFile(t, filepath.Join("testdata", "postgresql-15-out-of-memory-"+f), string(b))
		}
	}
}

// limitAddressSpace sets RLIMIT_AS of pid to its current size plus extra.
func limitAddressSpace(t *testing.T, pid int, extra uint64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	var kb uint64
	var uid, gid uint32
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmSize:"); ok {
			kb, _ = strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
		if v, ok := strings.CutPrefix(l, "Uid:"); ok {
			uid = firstID(v)
		}
		if v, ok := strings.CutPrefix(l, "Gid:"); ok {
			gid = firstID(v)
		}
	}
	lim := strconv.FormatUint(kb*1024+extra, 10)
	// Run prlimit as the backend's owner: without CAP_SYS_RESOURCE only a
	// process of the same user may change another's limits.
	cmd := exec.Command("prlimit", "--pid", strconv.Itoa(pid), "--as="+lim+":"+lim)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("prlimit: %v: %s", err, out)
	}
}

func firstID(s string) uint32 {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0
	}
	n, _ := strconv.ParseUint(f[0], 10, 32)
	return uint32(n)
}

func checkOOMError(t *testing.T, file, text string, pid int) {
	t.Helper()
	log, err := dblog.ParsePostgres(strings.NewReader(text))
	if err != nil || len(log.OutOfMemory) != 1 || len(log.Crashes) != 0 {
		t.Fatalf("%s: %+v (%v)", file, log, err)
	}
	o := log.OutOfMemory[0]
	if o.PID != pid || o.Severity != "ERROR" || o.RequestBytes == 0 || o.Context == "" || !strings.Contains(o.Query, "generate_series") {
		t.Errorf("%s: error = %+v", file, o)
	}
	wantDump := strings.HasSuffix(file, ".log") // the dump goes to stderr only
	if wantDump != (len(o.Contexts) > 0 && o.GrandTotal != nil) {
		t.Errorf("%s: %d contexts, grand total %+v", file, len(o.Contexts), o.GrandTotal)
	}
}

// TestRootLivePostgresOutOfMemoryErrorVersions does it on every PostgreSQL
// the tests have (16, 17, 18): the error, its request and context, the
// dump attached with its largest context, the engine detected.
func TestRootLivePostgresOutOfMemoryErrorVersions(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("prlimit on a postgres backend needs root")
	}
	pgtest.ForEachVersion(t, 16, func(t *testing.T, _ pgtest.Version) {
		c := pgtest.Start(t, map[string]string{"logging_collector": "on", "log_directory": "log", "log_filename": "postgresql.log"})
		conn, pid := pgtest.Backend(t, c)
		limitAddressSpace(t, pid, 256<<20)
		if err := pgtest.RunBigSort(conn); err == nil || !strings.Contains(err.Error(), "out of memory") {
			t.Fatalf("want ERROR out of memory, got %v", err)
		}
		conn.Exec(context.Background(), "SELECT pg_sleep(0.5)")
		b, err := os.ReadFile(filepath.Join(c.DataDir, "log", "postgresql.log"))
		if err != nil {
			t.Fatal(err)
		}
		checkOOMError(t, "postgresql.log", string(b), pid)
		log, _ := dblog.ParsePostgres(strings.NewReader(string(b)))
		o := log.OutOfMemory[0]
		if l := o.Largest(1); len(l) == 0 || l[0].TotalBytes < 64<<20 || o.RequestRedacted || o.Kind != dblog.OOMOutOfMemory {
			t.Errorf("largest %+v, redacted %v, kind %q", l, o.RequestRedacted, o.Kind)
		}
		if d := dblog.Detect(b); d.Engine != dblog.EnginePostgres {
			t.Errorf("engine %q", d.Engine)
		}
	})
}
