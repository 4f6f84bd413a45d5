package snapshot_test

import (
	"context"
	"flag"
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

var record = flag.Bool("record", false, "record the instances' /proc trees under testdata/fixtures")

const (
	readers     = 10
	tableBytes  = 1100 << 20 // more than 1 GiB, read by every connection
	sharedBytes = "1280MB"
)

// take snapshots the live host with a connection as the postgres superuser,
// recording what it reads when -record is given.
func take(t *testing.T, c *pgcluster.Cluster, fixture string) *postgres.Instance {
	t.Helper()
	rec := capture.NewRecorder()
	fs := linux.DefaultFS()
	if *record {
		fs.Tap = rec
	}
	live := &capture.LiveRecorder{Inner: postgres.Connector{Options: postgres.ConnOptions{User: "postgres"}}}
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: fs, Live: live, Method: measure.Smaps})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range s.Postgres {
		if in.PostmasterPID == c.PID {
			if *record {
				writeFixture(t, rec, live, in, fixture)
			}
			return in
		}
	}
	t.Fatalf("snapshot did not find the test instance (postmaster %d); gaps: %v", c.PID, s.Gaps)
	return nil
}

func TestHugePagesOff(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": sharedBytes, "huge_pages": "off", "max_connections": "40"})
	r := pgtest.Readers(t, c, readers, tableBytes)
	in := take(t, c, "pg15-hugepages-off")

	sh := in.Shared
	if sh == nil || sh.Hugetlb || sh.PageSizeBytes != 4096 || sh.Path != "/dev/zero (deleted)" {
		t.Fatalf("shared segment = %+v, want /dev/zero (deleted) in 4 KiB pages", sh)
	}
	checkRoles(t, in, r.PIDs)
	for _, pid := range r.PIDs {
		p := procOf(t, in, pid)
		pte := procField(t, pid, "status", "VmPTE")
		if !near(val(t, p.Status.VmPTEBytes), pte, 0.05) {
			t.Errorf("pid %d: report VmPTE %d, /proc says %d", pid, *p.Status.VmPTEBytes, pte)
		}
		// 1.1 GiB touched through 4 KiB pages needs 8 bytes per page: 2.2 MiB.
		if want := uint64(tableBytes / 512); *p.Status.VmPTEBytes < want {
			t.Errorf("pid %d: VmPTE %d, want at least %d (2 MiB per GiB touched)", pid, *p.Status.VmPTEBytes, want)
		}
		if val(t, p.Status.RssShmemBytes) < tableBytes {
			t.Errorf("pid %d: RssShmem %d, want at least the table's %d", pid, *p.Status.RssShmemBytes, tableBytes)
		}
		checkPssAnon(t, p)
	}
	sum := postgres.Summarize(in)
	if sum.ClientBackends != readers || val(t, sum.RSSBytes) < readers*tableBytes {
		t.Errorf("summary %+v: want %d clients and RSS adding up to more than %d", sum, readers, readers*tableBytes)
	}
}

func TestHugePagesOn(t *testing.T) {
	c, pages := pgtest.StartWithHugePages(t, map[string]string{"shared_buffers": sharedBytes, "max_connections": "40"})
	r := pgtest.Readers(t, c, readers, tableBytes)
	in := take(t, c, "pg15-hugepages-on")

	sh := in.Shared
	if sh == nil || !sh.Hugetlb || sh.PageSizeBytes != 2<<20 || sh.Path != "/anon_hugepage (deleted)" {
		t.Fatalf("shared segment = %+v, want /anon_hugepage (deleted) in 2 MiB pages", sh)
	}
	if got := sh.SizeBytes / (2 << 20); got != uint64(pages) {
		t.Errorf("segment is %d huge pages, postgres -C said %d", got, pages)
	}
	checkRoles(t, in, r.PIDs)
	for _, pid := range r.PIDs {
		p := procOf(t, in, pid)
		hug := procField(t, pid, "smaps_rollup", "Shared_Hugetlb")
		if p.Rollup == nil || !near(val(t, p.Rollup.SharedHugetlbBytes), hug, 0.05) || hug < tableBytes {
			t.Errorf("pid %d: Shared_Hugetlb report %v, /proc %d, want >= %d", pid, p.Rollup, hug, tableBytes)
		}
		if val(t, p.Status.RssShmemBytes) > 64<<20 {
			t.Errorf("pid %d: RssShmem %d with huge pages, want small", pid, *p.Status.RssShmemBytes)
		}
		// 2 MiB pages: 4 KiB of page table per GiB, plus the process's own.
		if val(t, p.Status.VmPTEBytes) > 1<<20 {
			t.Errorf("pid %d: VmPTE %d with huge pages, want under 1 MiB", pid, *p.Status.VmPTEBytes)
		}
		checkPssAnon(t, p)
	}
}

func checkRoles(t *testing.T, in *postgres.Instance, clients []int) {
	t.Helper()
	for _, r := range []postgres.Role{postgres.RolePostmaster, postgres.RoleCheckpointer, postgres.RoleBgWriter,
		postgres.RoleWalWriter, postgres.RoleAVLauncher} {
		if len(in.ByRole(r)) != 1 {
			t.Errorf("%d processes with role %q, want 1", len(in.ByRole(r)), r)
		}
	}
	for _, pid := range clients {
		p := procOf(t, in, pid)
		if p.Role != postgres.RoleClient || p.User != "postgres" || p.Database != "postgres" || p.State != "idle" {
			t.Errorf("pid %d: %+v, want an idle client backend of postgres@postgres", pid, p.Title)
		}
	}
}

func checkPssAnon(t *testing.T, p postgres.Proc) {
	t.Helper()
	want := procField(t, p.PID, "smaps_rollup", "Pss_Anon")
	if p.Rollup == nil || p.Rollup.PssAnonBytes == nil || !near(*p.Rollup.PssAnonBytes, want, 0.05) {
		t.Errorf("pid %d: Pss_Anon in report %v, /proc says %d", p.PID, p.Rollup, want)
	}
}

func procOf(t *testing.T, in *postgres.Instance, pid int) postgres.Proc {
	t.Helper()
	p, ok := in.Process(pid)
	if !ok {
		t.Fatalf("process %d not in the report", pid)
	}
	return p
}

// procField reads "Key: N kB" from /proc/PID/file independently of dbmem.
func procField(t *testing.T, pid int, file, key string) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == key+":" && f[2] == "kB" {
			v, _ := strconv.ParseUint(f[1], 10, 64)
			return v * 1024
		}
	}
	t.Fatalf("/proc/%d/%s has no %s", pid, file, key)
	return 0
}

func near(a, b uint64, tol float64) bool {
	d := float64(a) - float64(b)
	return d <= tol*float64(b)+64<<10 && -d <= tol*float64(b)+64<<10
}

// writeFixture keeps the files of this instance's processes, the host files
// and the instance's data directory files, and writes them as a fixture.
func writeFixture(t *testing.T, rec *capture.Recorder, live *capture.LiveRecorder, in *postgres.Instance, name string) {
	pids := map[string]bool{}
	for _, p := range in.Processes {
		pids[strconv.Itoa(p.PID)] = true
	}
	rec.Keep(func(path string) bool {
		if rest, ok := strings.CutPrefix(path, "/proc/"); ok {
			first, _, _ := strings.Cut(rest, "/")
			if _, err := strconv.Atoi(first); err == nil {
				return pids[first]
			}
			return true
		}
		if strings.HasPrefix(path, "/sys/") {
			return true
		}
		return strings.HasPrefix(path, in.DataDir)
	})
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	os.RemoveAll(dir)
	if err := rec.WriteTree(dir, linux.DefaultFS()); err != nil {
		t.Fatal(err)
	}
	if err := live.WriteTree(dir); err != nil {
		t.Fatal(err)
	}
	release, _ := linux.KernelRelease(linux.DefaultFS())
	note := "Recorded " + time.Now().UTC().Format(time.DateOnly) + " on kernel " + release + ", PostgreSQL " + in.Version +
		", by internal/snapshot " + t.Name() + " -record.\nPostmaster " + strconv.Itoa(in.PostmasterPID) +
		", " + strconv.Itoa(readers) + " client backends that each read a 1.1 GiB table through shared_buffers.\n"
	os.WriteFile(filepath.Join(dir, "README"), []byte(note), 0o644)
	t.Logf("recorded fixture %s", dir)
}

// val is a number the live kernel gives: nil fails the test.
func val(t *testing.T, p *uint64) uint64 {
	t.Helper()
	if p == nil {
		t.Fatal("a field this kernel has (6.x) was not read")
	}
	return *p
}
