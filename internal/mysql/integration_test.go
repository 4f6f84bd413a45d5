package mysql

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
	"github.com/dbmem/dbmem/internal/units"
)

var record = flag.Bool("mysql.record", false, "write testdata/smaps-mariadb-10.11.19-*.txt from the test servers")

// recordSmaps keeps the server's smaps, trimmed to mappings of 1 MiB or more.
func recordSmaps(t *testing.T, pid int, name string) {
	if !*record {
		return
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	keep := false
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.Count(f[0], "-") == 1 && !strings.HasSuffix(f[0], ":") {
			lo, hi, _ := strings.Cut(f[0], "-")
			a, err1 := strconv.ParseUint(lo, 16, 64)
			z, err2 := strconv.ParseUint(hi, 16, 64)
			keep = err1 == nil && err2 == nil && z-a >= 1<<20
		}
		if keep {
			out = append(out, line)
		}
	}
	if err := os.WriteFile("testdata/"+name, []byte(strings.Join(out, "")), 0o644); err != nil {
		t.Fatal(err)
	}
}

// onlyPID connects to the test's own server and refuses every other (the
// host's MariaDB is never asked anything).
type onlyPID struct {
	pid   int
	inner LiveSource
}

func (o onlyPID) Live(ctx context.Context, in *Instance) (Live, error) {
	if in.PID != o.pid {
		return Live{}, errors.New("not the test's server")
	}
	return o.inner.Live(ctx, in)
}

func discoverTest(t *testing.T, s *mysqltest.Server, live bool) *Instance {
	t.Helper()
	fs := linux.DefaultFS()
	opt := Options{Method: measure.Smaps, PageSizes: []uint64{2 << 20}}
	if live {
		opt.Live = onlyPID{s.PID, Connector{FS: fs}}
	}
	ins, gaps, err := Discover(context.Background(), fs, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.PID == s.PID {
			return in
		}
	}
	t.Fatalf("test server %d not discovered (gaps %v)", s.PID, gaps)
	return nil
}

// kernelPageSizeAt reads /proc/PID/smaps independently of package linux:
// the KernelPageSize of the mapping starting at start.
func kernelPageSizeAt(t *testing.T, pid int, start uint64) uint64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prefix := fmt.Sprintf("%x-", start)
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, prefix) {
			in = true
		}
		if kb, ok := strings.CutPrefix(line, "KernelPageSize:"); ok && in {
			n, _ := strconv.ParseUint(strings.Fields(kb)[0], 10, 64)
			return n << 10
		}
	}
	t.Fatalf("no mapping at %#x in /proc/%d/smaps", start, pid)
	return 0
}

// The measured case: MariaDB 10.11 with large_pages=ON and a pool sized
// for its 1 GiB buffer pool starts, but the buffer pool stays in 4 KiB
// pages: smaller large-page allocations made first took part of the pool,
// and the pool's reservation then failed silently. Only the mappings tell.
// dbmem must report the page size the kernel uses, and its plan must size
// a pool with which the buffer pool does go into huge pages.
func TestMariaDBLargePagesBufferPool(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	settings := map[string]string{"innodb_buffer_pool_size": "1G", "large_pages": "ON"}
	kerneltest.AddHugePages(t, 600) // 1 GiB / 2 MiB = 512, and 88 to spare
	free, base := freeHugePages(t), inUseHugePages(t)
	s := mysqltest.Start(t, settings)
	in := discoverTest(t, s, true)
	if !in.Connected || in.Flavor != MariaDB || !in.LargePages() {
		t.Fatalf("instance: connected %v (%s) flavor %s large_pages %v", in.Connected, in.Connection, in.Flavor, in.LargePages())
	}
	if v := in.Settings["innodb_buffer_pool_size"]; v.Value != "1073741824" || v.Source != FromServer {
		t.Errorf("innodb_buffer_pool_size = %+v", v)
	}
	bp := checkPoolMapping(t, in)
	recordSmaps(t, in.PID, "smaps-mariadb-10.11.19-pool-4k.txt")
	checkMemoryFigures(t, in)
	plan := PlanHugePages(in, 2<<20, 4096)
	t.Logf("%d free huge pages at start; plan: %d pages %+v", free, plan.Pages, plan.Lines)
	if !bp.Hugetlb && plan.Pages <= free {
		t.Errorf("pool in 4 KiB pages with %d free huge pages, yet the plan says %d suffice", free, plan.Pages)
	}
	if api, from := APIOf(in); api != HugeMmap {
		t.Errorf("MariaDB 10.11 maps large pages with %s (%s), want mmap", api, from)
	}
	if bp.Hugetlb {
		return // a MariaDB that puts the pool in huge pages first: nothing more to show
	}
	if strings.HasPrefix(in.Version, "10.11.19") && len(in.Memory.HugeMappings) == 0 {
		t.Errorf("MariaDB 10.11.19 measured here put smaller allocations in huge pages; none found")
	}
	s.Stop(t)
	waitHugePagesBack(t, base) // io_uring workers may hold the exited server's memory a moment
	kerneltest.AddHugePages(t, int(plan.Pages-free))
	freeNow := freeHugePages(t)
	start := time.Now()
	in2 := discoverTest(t, mysqltest.Start(t, settings), true)
	t.Logf("second server started in %s with %d free huge pages", time.Since(start).Round(time.Millisecond), freeNow)
	if freeNow < plan.Pages {
		t.Skipf("only %d huge pages free (another process took some): the plan cannot be checked", freeNow)
	}
	recordSmaps(t, in2.PID, "smaps-mariadb-10.11.19-pool-huge.txt")
	if bp2 := checkPoolMapping(t, in2); !bp2.Hugetlb {
		t.Errorf("with the planned %d pages the buffer pool is still in %d-byte pages", plan.Pages, bp2.PageSizeBytes)
	}
	// What the server holds varies by a few small allocations from one
	// start to the next: the plan (with its margin) must cover it, and not
	// by much more than the margin.
	var held uint64
	for _, m := range in2.Memory.HugeMappings {
		held += units.CeilDiv(m.SizeBytes, 2<<20)
	}
	t.Logf("with the plan's %d pages the server holds %d", plan.Pages, held)
	if held > plan.Pages || plan.Pages-held > plan.Pages/5 {
		t.Errorf("the server holds %d huge pages, the plan said %d", held, plan.Pages)
	}
}

// checkPoolMapping compares the buffer pool's page size with smaps.
func checkPoolMapping(t *testing.T, in *Instance) *BufferPool {
	t.Helper()
	bp := in.Memory.BufferPool
	if bp == nil {
		t.Fatalf("no buffer pool mapping found: %v", in.Gaps)
	}
	for _, m := range bp.Mappings {
		if got := kernelPageSizeAt(t, in.PID, m.Start); got != m.PageSizeBytes {
			t.Errorf("mapping %#x: dbmem says %d-byte pages, smaps says %d", m.Start, m.PageSizeBytes, got)
		}
	}
	if bp.SizeBytes < 1<<30 || bp.SizeBytes > 1<<30+64<<20 {
		t.Errorf("buffer pool mapping %d bytes, want 1 GiB plus control blocks", bp.SizeBytes)
	}
	t.Logf("%s: buffer pool %s in %d-byte pages (%s)", in.Version, units.Bytes(bp.SizeBytes), bp.PageSizeBytes, bp.How)
	for _, m := range in.Memory.HugeMappings {
		t.Logf("  huge mapping %#x %s %s resident %s", m.Start, units.Bytes(m.SizeBytes), m.Path, units.Bytes(m.ResidentBytes))
	}
	return bp
}

func freeHugePages(t *testing.T) uint64 {
	m, err := linux.ReadMeminfo(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	return *m.HugePagesFree - *m.HugePagesRsvd
}

func waitHugePagesBack(t *testing.T, base uint64) {
	for end := time.Now().Add(2 * time.Minute); inUseHugePages(t) > base; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(end) {
			t.Logf("huge pages in use stayed at %d after the server stopped, want %d", inUseHugePages(t), base)
			return
		}
	}
}

func inUseHugePages(t *testing.T) uint64 {
	m, err := linux.ReadMeminfo(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	return *m.HugePagesTotal - *m.HugePagesFree + *m.HugePagesRsvd
}

func checkMemoryFigures(t *testing.T, in *Instance) {
	t.Helper()
	m := in.Memory
	if m.Threads < 2 || !m.PrivateExact || m.PerThreadBytes == nil || *m.PerThreadBytes == 0 || *m.OutsidePoolBytes > *m.PrivateBytes {
		t.Errorf("memory = %+v", m)
	}
	if _, ok := in.StatusBytes("memory_used"); !ok {
		t.Errorf("MariaDB's Memory_used status missing: %d status variables", len(in.Status))
	}
	wc := ComputeWorstCase(in)
	global := wc.Sum(enginemem.Global, enginemem.InHugePages)
	if wc.MaxConnections != 151 || wc.TotalBytes != global+151*wc.Sum(enginemem.PerConnection)+wc.PageTablesBytes || global < 1<<30 {
		t.Errorf("worst case = %+v", wc)
	}
}

// Without a connection the settings come from the my.cnf the server was
// started with (--defaults-file on its command line).
func TestMariaDBSettingsFromFiles(t *testing.T) {
	s := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M", "max_connections": "40", "skip-performance-schema": ""})
	in := discoverTest(t, s, false)
	if in.Connected || len(in.OptionFiles) != 1 || in.OptionFiles[0] != s.ConfigFile {
		t.Fatalf("connected %v, option files %v", in.Connected, in.OptionFiles)
	}
	v := in.Settings["innodb_buffer_pool_size"]
	if b, _ := in.Settings.Bytes("innodb_buffer_pool_size"); b != 256<<20 || v.Source != FromConfigFile || v.File != s.ConfigFile {
		t.Errorf("innodb_buffer_pool_size = %+v", v)
	}
	if n, _ := in.Settings.Int("max_connections"); n != 40 || in.Socket != s.Socket || in.Port != s.Port || in.DataDir != s.DataDir {
		t.Errorf("max_connections %d socket %s port %d datadir %s", n, in.Socket, in.Port, in.DataDir)
	}
	if ps, _ := in.Settings.Bool("performance_schema"); ps {
		t.Error("skip-performance-schema should read as performance_schema=OFF")
	}
	if in.Version == "" || in.Major != 10 {
		t.Errorf("version %q from mysql_upgrade_info", in.Version)
	}
	if bp := in.Memory.BufferPool; bp == nil || bp.SizeBytes < 256<<20 || bp.Hugetlb {
		t.Errorf("buffer pool = %+v", bp)
	}
}
