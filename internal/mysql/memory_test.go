package mysql

import (
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/linux"
)

func fixtureSmaps(t testing.TB, name string) []linux.SmapsEntry {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	es, err := linux.ParseSmaps(strings.NewReader(string(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// The measured case, recorded: large_pages=ON, the pool in 4 KiB pages,
// two smaller allocations in huge pages.
func TestFindBufferPoolRecorded4K(t *testing.T) {
	es := fixtureSmaps(t, "smaps-mariadb-10.11.19-pool-4k.txt")
	bp := FindBufferPool(es, 1<<30)
	if bp == nil || len(bp.Mappings) != 1 || bp.Mappings[0].Start != 0x7f8e3c000000 || bp.SizeBytes != 1<<30 ||
		bp.PageSizeBytes != 4096 || bp.Hugetlb || !bp.Mappings[0].DontDump {
		t.Fatalf("buffer pool = %+v", bp)
	}
	in := &Instance{Flavor: MariaDB, Settings: Defaults(MariaDB)}
	in.setVersion("10.11.19-MariaDB")
	in.Settings.set("innodb_buffer_pool_size", "1G", FromServer, "")
	in.Settings.set("large_pages", "ON", FromServer, "")
	in.Memory = measureMemory(linux.Process{Status: linux.Status{Threads: new(15), RssAnonBytes: new(uint64(90 << 20))}}, es, 1<<30)
	if n := len(in.Memory.HugeMappings); n != 2 {
		t.Fatalf("huge mappings: %d, want the 124 MiB and 106 MiB ones", n)
	}
	p := PlanHugePages(in, 2<<20, 4096)
	if p.Pages != 627+62 || p.API != HugeMmap || !strings.HasPrefix(p.APIFrom, "measured") || p.SysV != nil {
		t.Errorf("plan = %+v, want 627 pages + 62 margin by mmap", p)
	}
}

func TestFindBufferPoolRecordedHuge(t *testing.T) {
	es := fixtureSmaps(t, "smaps-mariadb-10.11.19-pool-huge.txt")
	bp := FindBufferPool(es, 1<<30)
	if bp == nil || bp.SizeBytes != 1<<30 || !bp.Hugetlb || bp.PageSizeBytes != 2<<20 || bp.Mappings[0].Path != "/anon_hugepage (deleted)" {
		t.Fatalf("buffer pool = %+v", bp)
	}
	in := &Instance{Flavor: MariaDB, Settings: Defaults(MariaDB)}
	in.Memory = measureMemory(linux.Process{}, es, 1<<30)
	if p := PlanHugePages(in, 2<<20, 4096); p.Pages != 627+62 {
		t.Errorf("plan for a server whose pool is in huge pages: %d pages (%+v), want what it holds (627)", p.Pages, p.Lines)
	}
}

// Older servers allocate the pool in chunks: several mappings, SysV
// segments for MySQL 5.7 with large pages.
func TestFindBufferPoolChunks(t *testing.T) {
	mk := func(start, size uint64, path string, page uint64) linux.SmapsEntry {
		e := linux.SmapsEntry{KernelPageSizeBytes: page, RssBytes: size / 2}
		e.Start, e.End, e.Perms, e.Path = start, start+size, "rw-s", path
		if page > 4096 {
			e.VmFlags = []string{"rd", "wr", "sh", "ht"}
		}
		return e
	}
	var es []linux.SmapsEntry
	for i := uint64(0); i < 4; i++ {
		es = append(es, mk(0x7f0000000000+i<<28, 128<<20, "/SYSV00000000 (deleted)", 2<<20))
	}
	es = append(es, mk(0x7e0000000000, 64<<20, "", 4096)) // an arena
	bp := FindBufferPool(es, 512<<20)
	if bp == nil || len(bp.Mappings) != 4 || !bp.Hugetlb || !bp.Mappings[0].SysV() {
		t.Fatalf("buffer pool = %+v", bp)
	}
	in := &Instance{Flavor: MySQL, Settings: Defaults(MySQL), Creds: &linux.Creds{GID: 27}}
	in.Memory.HugeMappings, in.Memory.BufferPool = bp.Mappings, bp
	p := PlanHugePages(in, 2<<20, 4096)
	if p.API != HugeSysV || p.Pages != 256+25 || p.SysV.MemlockBytes != 281*2<<20 || *p.SysV.ShmGroup != 27 || p.SysV.ShmMaxBytes != 128<<20 || p.SysV.ShmAllPages != 131072 {
		t.Errorf("SysV plan = %+v", p)
	}
	if FindBufferPool(es, 8<<30) != nil {
		t.Error("a pool of 8 GiB cannot be in 576 MiB of mappings")
	}
}

func TestWorstCase(t *testing.T) {
	in := &Instance{Flavor: MariaDB, Settings: Defaults(MariaDB)}
	in.Settings.set("max_connections", "100", FromServer, "")
	wc := ComputeWorstCase(in)
	global := wc.Sum(enginemem.Global)
	// global: 128M pool + 16M log + 128M key + 1M query cache + 128M aria
	if global != (128+16+128+1+128)<<20 {
		t.Errorf("global = %d", global)
	}
	// per thread: 2M sort + 256K join + 128K read + 256K rnd + 292K stack + 16K net + 16M tmp
	per := uint64(2<<20 + 256<<10 + 128<<10 + 256<<10 + 299008 + 16<<10 + 16<<20)
	// page tables: the pool, log buffer, key cache and Aria cache (400 MiB) in 4 KiB pages
	pt := uint64(400<<20) / 4096 * 8
	if got := wc.Sum(enginemem.PerConnection); got != per || wc.TotalBytes != global+100*per+pt || !wc.Measured("performance_schema") {
		t.Errorf("per thread %d (want %d), total %d", got, per, wc.TotalBytes)
	}
	in.Settings.set("log_bin", "ON", FromServer, "")
	in.Settings.set("performance_schema", "ON", FromServer, "")
	in.Settings.set("tmp_table_size", "64M", FromServer, "")
	in.PerfSchemaMemory = []MemoryEvent{{"memory/performance_schema/events_statements_history_long", 10 << 20}, {"memory/sql/THD::main_mem_root", 5 << 20}}
	wc2 := ComputeWorstCase(in)
	ps, _ := wc2.Line("performance_schema")
	if wc2.Sum(enginemem.PerConnection) != per+64<<10 || ps.Bytes != 10<<20 {
		t.Errorf("with binlog caches and perf schema: per thread %d, ps %d", wc2.Sum(enginemem.PerConnection), ps.Bytes)
	}
	in.PerfSchemaMemory = nil
	if wc3 := ComputeWorstCase(in); wc3.Measured("performance_schema") {
		t.Error("performance_schema ON without a measurement must be unknown")
	}
}

func TestAPIOfVersion(t *testing.T) {
	for _, c := range []struct {
		flavor Flavor
		v      string
		want   HugeAPI
	}{
		{MariaDB, "5.5.68-MariaDB", HugeSysV}, {MariaDB, "10.4.32-MariaDB", HugeSysV}, {MariaDB, "10.5.0-MariaDB", HugeMmap},
		{MariaDB, "10.11.19-MariaDB", HugeMmap}, {MariaDB, "11.4.5-MariaDB", HugeMmap},
		{MySQL, "5.6.51", HugeSysV}, {MySQL, "5.7.44", HugeSysV}, {MySQL, "8.0.36", HugeMmap}, {MySQL, "8.4.3", HugeMmap},
		{MySQL, "9.1.0", HugeMmap}, {MySQL, "", HugeMmap},
	} {
		in := &Instance{Flavor: c.flavor}
		in.setVersion(c.v)
		if got, _ := APIOf(in); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.flavor, c.v, got, c.want)
		}
	}
}

func FuzzFindBufferPool(f *testing.F) {
	b, err := os.ReadFile("testdata/smaps-mariadb-10.11.19-pool-4k.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b[:4000]), uint64(1<<30))
	f.Fuzz(func(t *testing.T, s string, pool uint64) {
		es, _ := linux.ParseSmaps(strings.NewReader(s), nil)
		if bp := FindBufferPool(es, pool); bp != nil && bp.SizeBytes*10 < pool*9 {
			t.Errorf("pool of %d in %d bytes", pool, bp.SizeBytes)
		}
	})
}
