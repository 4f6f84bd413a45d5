package linux

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func u64(v uint64) *uint64 { return &v }

// is reports whether p holds v.
func is(p *uint64, v uint64) bool { return p != nil && *p == v }

// Recorded on kernel 6.18.44 (Debian 12 VM, 24 GiB), trimmed.
const meminfo618 = `MemTotal:       24683620 kB
MemFree:        23290424 kB
MemAvailable:   24139780 kB
Buffers:           40216 kB
Cached:          1039688 kB
SwapCached:            0 kB
AnonPages:        152776 kB
Mapped:            98368 kB
Shmem:             69500 kB
Slab:             118292 kB
SReclaimable:      93036 kB
KernelStack:        2264 kB
PageTables:         3236 kB
SecPageTables:         0 kB
SwapTotal:             0 kB
SwapFree:              0 kB
CommitLimit:    12341808 kB
Committed_AS:     970716 kB
AnonHugePages:         0 kB
ShmemHugePages:        0 kB
HugePages_Total:     666
HugePages_Free:       89
HugePages_Rsvd:       89
HugePages_Surp:        0
Hugepagesize:       2048 kB
Hugetlb:         1363968 kB
`

func TestParseMeminfo(t *testing.T) {
	got, err := parseMeminfo(strings.NewReader(meminfo618))
	if err != nil {
		t.Fatal(err)
	}
	want := Meminfo{
		MemTotalBytes: u64(24683620 << 10), MemFreeBytes: u64(23290424 << 10), MemAvailableBytes: u64(24139780 << 10),
		BuffersBytes: u64(40216 << 10), CachedBytes: u64(1039688 << 10), SwapCachedBytes: u64(0), AnonPagesBytes: u64(152776 << 10),
		MappedBytes: u64(98368 << 10), ShmemBytes: u64(69500 << 10), SlabBytes: u64(118292 << 10),
		SReclaimableBytes: u64(93036 << 10), KernelStackBytes: u64(2264 << 10), PageTablesBytes: u64(3236 << 10),
		SecPageTablesBytes: u64(0), SwapTotalBytes: u64(0), SwapFreeBytes: u64(0),
		CommitLimitBytes: u64(12341808 << 10), CommittedASBytes: u64(970716 << 10),
		AnonHugePagesBytes: u64(0), ShmemHugePagesBytes: u64(0),
		HugePagesTotal: u64(666), HugePagesFree: u64(89), HugePagesRsvd: u64(89), HugePagesSurp: u64(0), HugepagesizeBytes: u64(2 << 20),
		HugetlbBytes: u64(1363968 << 10),
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("meminfo (-want +got):\n%s", d)
	}
	if c, ok := got.PageCacheBytes(); !ok || c != (1039688+40216-69500)<<10 {
		t.Errorf("page cache %d %v", c, ok)
	}
	if miss := got.Missing(); !cmp.Equal(miss, []string{"Mlocked"}) {
		t.Errorf("missing %q, want only Mlocked (trimmed from the recording)", miss)
	}
}

func TestParseMeminfoOldKernel(t *testing.T) {
	// 3.2 lacks MemAvailable: the classic estimate, kept apart from it.
	old := "MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 300 kB\nShmem: 20 kB\n"
	got, err := parseMeminfo(strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if got.SecPageTablesBytes != nil || got.HugetlbBytes != nil || got.MemAvailableBytes != nil || got.PageTablesBytes != nil {
		t.Errorf("fields without a line are set: %+v", got)
	}
	want := uint64(100+50+300-20) << 10
	if v, est, ok := got.Available(); v != want || !est || !ok {
		t.Errorf("Available() = %d, %v, %v; want the estimate %d", v, est, ok, want)
	}
	gaps := meminfoGaps(got)
	if len(gaps) != 2 || !strings.Contains(gaps[1].Why, "estimate") || strings.Contains(gaps[0].What, "MemAvailable") {
		t.Errorf("gaps %v: want the missing lines (MemAvailable not among them) and the estimate", gaps)
	}
}

func TestParseMeminfoPartial(t *testing.T) {
	// What people paste: grep Huge /proc/meminfo. Accepted; the rest unknown.
	got, err := parseMeminfo(strings.NewReader("$ grep Huge /proc/meminfo\nAnonHugePages:    0 kB\nHugePages_Total:     400\nHugePages_Free:      400\nHugePages_Rsvd:        0\nHugePages_Surp:        0\nHugepagesize:     2048 kB\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got.MemTotalBytes != nil || got.PageTablesBytes != nil || *got.HugePagesTotal != 400 {
		t.Errorf("partial meminfo: %+v", got)
	}
	if _, _, ok := got.Available(); ok {
		t.Error("MemAvailable known without a line for it")
	}
	if _, ok := got.SwapUsedBytes(); ok {
		t.Error("swap used known without SwapTotal")
	}
}

func TestParseMeminfoBad(t *testing.T) {
	freeM := "              total        used        free      shared  buff/cache   available\n" +
		"Mem:          15885        3210        9876         123        2798       12220\nSwap:          2047           0        2047\n"
	for _, in := range []string{"", "garbage", "MemTotal:\nMemFree 1", freeM} {
		_, err := parseMeminfo(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), "free -m") {
			t.Errorf("parseMeminfo(%q) = %v, want the error that names what meminfo is", in, err)
		}
	}
	// A one-field or odd line is ignored, not fatal (procfs used to panic here).
	if _, err := parseMeminfo(strings.NewReader("MemTotal: 10 kB\nMemFree: 5 kB\nWeird:\nX: 1 2 3\nY: 12 TB\n")); err != nil {
		t.Errorf("odd lines made the parse fail: %v", err)
	}
}

func TestParseKVLine(t *testing.T) {
	tests := []struct {
		line string
		key  string
		val  uint64
		ok   bool
	}{
		{"VmPTE:	    2480 kB", "VmPTE", 2480 << 10, true},
		{"HugePages_Total:     666", "HugePages_Total", 666, true},
		{"Name:\tpostgres", "", 0, false},
		{"Cpus_allowed_list:\t0-1", "", 0, false},
		{"Rss: 18446744073709551615 kB", "", 0, false}, // would overflow in bytes
		{": 5 kB", "", 0, false},
		{"Two words: 5 kB", "", 0, false},
	}
	for _, tc := range tests {
		k, v, ok := parseKVLine(tc.line)
		if k != tc.key || v != tc.val || ok != tc.ok {
			t.Errorf("parseKVLine(%q) = %q, %d, %v; want %q, %d, %v", tc.line, k, v, ok, tc.key, tc.val, tc.ok)
		}
	}
}

// A client backend after reading 1.1 GiB through 4 KiB shared buffers (6.18).
const statusBackend = `Name:	postgres
Umask:	0077
State:	S (sleeping)
Tgid:	18707
Ngid:	0
Pid:	18707
PPid:	18590
TracerPid:	0
Uid:	101	101	101	101
Gid:	104	104	104	104
VmPeak:	  1638768 kB
VmSize:	  1638768 kB
VmLck:	       0 kB
VmPin:	       0 kB
VmHWM:	  1216672 kB
VmRSS:	  1216672 kB
RssAnon:	   13004 kB
RssFile:	    9740 kB
RssShmem:	 1193928 kB
VmData:	   12688 kB
VmStk:	     132 kB
VmExe:	    5712 kB
VmLib:	   22024 kB
VmPTE:	    2600 kB
VmSwap:	       0 kB
HugetlbPages:	       0 kB
CoreDumping:	0
THP_enabled:	1
Threads:	1
`

func TestParseStatus(t *testing.T) {
	got, err := parseStatus(strings.NewReader(statusBackend))
	if err != nil {
		t.Fatal(err)
	}
	want := Status{Name: "postgres", State: "S", PPid: 18590, UID: new(101), HasMM: true,
		VmPeakBytes: u64(1638768 << 10), VmSizeBytes: u64(1638768 << 10), VmLckBytes: u64(0), VmHWMBytes: u64(1216672 << 10),
		VmRSSBytes: u64(1216672 << 10), RssAnonBytes: u64(13004 << 10), RssFileBytes: u64(9740 << 10),
		RssShmemBytes: u64(1193928 << 10), VmPTEBytes: u64(2600 << 10), VmSwapBytes: u64(0), HugetlbPageBytes: u64(0), VmLibBytes: u64(22024 << 10), Threads: new(1)}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("status (-want +got):\n%s", d)
	}
	kthread, _ := parseStatus(strings.NewReader("Name:\tkworker/0:1\nState:\tI (idle)\nPPid:\t2\nThreads:\t1\n"))
	if kthread.HasMM || kthread.VmRSSBytes != nil {
		t.Errorf("kernel thread: %+v", kthread)
	}
	// An unparseable line is unknown, not 0.
	odd, _ := parseStatus(strings.NewReader("Name:\tx\nVmSize:\t10 kB\nVmPTE:\tlots kB\nRssAnon:\t-1 kB\nVmSwap:\t0 kB\n"))
	if odd.VmPTEBytes != nil || odd.RssAnonBytes != nil || odd.VmSwapBytes == nil || *odd.VmSwapBytes != 0 {
		t.Errorf("unparseable VmPTE/RssAnon: %+v", odd)
	}
}

func TestParseSmapsRollup(t *testing.T) {
	in := `55d7c6a5d000-7ffd3a7f8000 ---p 00000000 00:00 0                          [rollup]
Rss:             1216672 kB
Pss:              131316 kB
Pss_Dirty:        120000 kB
Pss_Anon:          11168 kB
Pss_File:           5200 kB
Pss_Shmem:        114948 kB
Shared_Clean:      10000 kB
Shared_Dirty:    1190000 kB
Private_Clean:      4000 kB
Private_Dirty:     12672 kB
Referenced:      1216672 kB
Anonymous:         13004 kB
AnonHugePages:         0 kB
Shared_Hugetlb:        0 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
`
	got, err := parseSmapsRollup(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got.PssBytes != 131316<<10 || *got.PssAnonBytes != 11168<<10 || *got.PssShmemBytes != 114948<<10 ||
		*got.AnonymousBytes != 13004<<10 || *got.SharedDirtyBytes != 1190000<<10 || got.ShmemPmdMappedBytes != nil {
		t.Errorf("rollup %+v", got)
	}
	// Kernel 4.14-5.2: no Pss_Anon/File/Shmem.
	old, err := parseSmapsRollup(strings.NewReader("Rss: 10 kB\nPss: 5 kB\n"))
	if err != nil || old.PssAnonBytes != nil {
		t.Errorf("old rollup: %+v %v", old, err)
	}
	if _, err := parseSmapsRollup(strings.NewReader("Swap: 0 kB\n")); err == nil {
		t.Error("rollup without Rss/Pss accepted")
	}
}

func TestParseStat(t *testing.T) {
	line := "18707 (postgres) S 18590 18590 18590 0 -1 4194560 301245 0 3 0 29 41 0 0 20 0 1 0 9912 1678098432 304168 18446744073709551615 1 1 0 0 0 0 4194304 19935232 1233 0 0 0 17 1 0 0 0 0 0\n"
	got, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	want := Stat{PID: 18707, Comm: "postgres", State: "S", PPid: 18590, MinFlt: 301245, MajFlt: 3, StartTicks: 9912}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("stat (-want +got):\n%s", d)
	}
	odd, err := parseStat("42 (a) b) c) R 1 1 1 0 -1 0 7 0 0 0 0 0 0 0 20 0 1 0 55 0 0\n")
	if err != nil || odd.Comm != "a) b) c" || odd.StartTicks != 55 {
		t.Errorf("comm with parentheses: %+v %v", odd, err)
	}
	for _, bad := range []string{"", "12", "x (y) S", "12 (y) S 1 2"} {
		if _, err := parseStat(bad); err == nil {
			t.Errorf("parseStat(%q) accepted", bad)
		}
	}
}

// Recorded from the host's PostgreSQL 15 postmaster, kernel 6.18.44-fc-v769.
const postmasterStat = "2233 (postgres) S 1 2233 2233 0 -1 4194304 4942 65162 0 24 8 16 140 144 20 0 1 0 4941 222543872 7666 " +
	"18446744073709551615 94073784205312 94073789661657 140735472880304 0 0 0 0 24129536 84487 1 0 0 17 1 0 0 0 0 0 " +
	"94073792141392 94073792359114 94073969147904 140735472881310 140735472881432 140735472881432 140735472881620 0\n"

// TestParseStatChildFaults: cminflt and cmajflt (fields 11 and 13), which
// the lab reads from the postmaster to count its backends' faults.
func TestParseStatChildFaults(t *testing.T) {
	got, err := parseStat(postmasterStat)
	if err != nil || got.MinFlt != 4942 || got.CMinFlt != 65162 || got.MajFlt != 0 || got.CMajFlt != 24 {
		t.Fatalf("got %+v, %v; want minflt 4942, cminflt 65162, majflt 0, cmajflt 24", got, err)
	}
	odd := strings.Replace(postmasterStat, "(postgres)", "(a) b (c)", 1)
	if got, err := parseStat(odd); err != nil || got.CMinFlt != 65162 {
		t.Errorf("comm with spaces and parentheses: %+v, %v", got, err)
	}
	if _, err := parseStat("2233 (postgres) S 1 2 3 4 5 6 7 x 9 y 1 2 3 4 5 6 7 8 9 10"); err == nil {
		t.Error("a cminflt that is not a number was accepted")
	}
}

func TestParseMaps(t *testing.T) {
	in := `55d7c6a5d000-55d7c6b2a000 r--p 00000000 fe:00 1573147                    /usr/lib/postgresql/15/bin/postgres
7f2a40000000-7f2a93400000 rw-s 00000000 00:01 1054                       /anon_hugepage (deleted)
7f2a93400000-7f2a93401000 rw-s 00000000 00:01 4                          /SYSV0052e2c1 (deleted)
7ffd3a7d7000-7ffd3a7f8000 rw-p 00000000 00:00 0                          [stack]
7f2a9a000000-7f2a9a021000 rw-p 00000000 00:00 0 
`
	got, err := ParseMaps(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("%d mappings, want 5", len(got))
	}
	hp := got[1]
	if hp.Path != "/anon_hugepage (deleted)" || !hp.Shared() || hp.SizeBytes() != 0x53400000 || hp.Inode != 1054 {
		t.Errorf("huge page mapping %+v", hp)
	}
	if got[4].Path != "" || got[4].Shared() || got[3].Path != "[stack]" {
		t.Errorf("anonymous/stack mappings: %+v %+v", got[3], got[4])
	}
	for _, bad := range []string{"zz-10 rw-p 0 0:0 0", "10-5 rw-p 0 00:00 0", "10 rw-p 0 00:00 0"} {
		if _, err := ParseMaps(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseMaps(%q) accepted", bad)
		}
	}
}

func TestParseSmapsKeepsOnlyAsked(t *testing.T) {
	in := `7f2a40000000-7f2a93400000 rw-s 00000000 00:01 1054                       /anon_hugepage (deleted)
Size:            1363968 kB
KernelPageSize:     2048 kB
MMUPageSize:        2048 kB
Rss:                   0 kB
Pss:                   0 kB
Shared_Hugetlb:    53248 kB
Private_Hugetlb:       0 kB
VmFlags: rd wr sh mr mw me ms de ht sd
7ffd3a7d7000-7ffd3a7f8000 rw-p 00000000 00:00 0                          [stack]
Size:                132 kB
KernelPageSize:        4 kB
Rss:                  40 kB
VmFlags: rd wr mr mw me gd ac
`
	got, err := parseSmaps(strings.NewReader(in), func(m Mapping) bool { return m.Shared() })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Hugetlb() || got[0].KernelPageSizeBytes != 2<<20 || got[0].SharedHugetlbBytes != 53248<<10 {
		t.Errorf("smaps: %+v", got)
	}
	all, _ := parseSmaps(strings.NewReader(in), nil)
	if len(all) != 2 || all[1].Hugetlb() || all[1].RssBytes != 40<<10 {
		t.Errorf("smaps all: %+v", all)
	}
}

func TestParseCmdline(t *testing.T) {
	if got := parseCmdline([]byte("/usr/bin/postgres\x00-D\x00/data\x00")); !cmp.Equal(got, []string{"/usr/bin/postgres", "-D", "/data"}) {
		t.Errorf("cmdline %q", got)
	}
	// A rewritten title is one string padded with NULs or spaces.
	if got := parseCmdline([]byte("postgres: checkpointer \x00\x00\x00")); len(got) != 1 || got[0] != "postgres: checkpointer " {
		t.Errorf("title %q", got)
	}
	if got := parseCmdline(nil); got != nil {
		t.Errorf("empty cmdline %q", got)
	}
}

func TestSelectedWordAndPoolName(t *testing.T) {
	if SelectedWord("always [madvise] never\n") != "madvise" || SelectedWord("never\n") != "never" {
		t.Error("selectedWord")
	}
	if kb, err := poolSizeKB("hugepages-1048576kB"); err != nil || kb != 1<<20 {
		t.Errorf("1 GiB pool: %d %v", kb, err)
	}
	for _, bad := range []string{"hugepages-kB", "hugepages-0kB", "other"} {
		if _, err := poolSizeKB(bad); err == nil {
			t.Errorf("poolSizeKB(%q) accepted", bad)
		}
	}
}

func TestParseProcCgroup(t *testing.T) {
	in := "12:memory:/docker/abc\n11:cpu,cpuacct:/docker/abc\n0::/system.slice/postgresql@15-main.service\nbad line\n"
	got := ParseProcCgroup(strings.NewReader(in))
	want := []CgroupLine{
		{ID: 12, Controllers: []string{"memory"}, Path: "/docker/abc"},
		{ID: 11, Controllers: []string{"cpu", "cpuacct"}, Path: "/docker/abc"},
		{ID: 0, Path: "/system.slice/postgresql@15-main.service"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cgroup (-want +got):\n%s", d)
	}
}

func TestHugePoolInUse(t *testing.T) {
	p := HugePool{Total: 666, Free: 89, Reserved: u64(89), PageSizeBytes: 2 << 20}
	if n, ok := p.InUse(); n != 666 || !ok || p.Bytes() != 666*2<<20 {
		t.Errorf("in use %d %v bytes %d", n, ok, p.Bytes())
	}
	if n, _ := (HugePool{Total: 10, Free: 10, Reserved: u64(0)}).InUse(); n != 0 {
		t.Error("an unused pool is in use")
	}
	if _, ok := (HugePool{Node: 0, Total: 10, Free: 5}).InUse(); ok {
		t.Error("a node's pool (no reservation count) has a known use")
	}
}

func TestKernelVersion(t *testing.T) {
	for in, want := range map[string][2]int{"6.18.44-fc-v769": {6, 18}, "3.10.0-1160.el7.x86_64": {3, 10}, "": {0, 0}, "x": {0, 0}} {
		if a, b := KernelVersion(in); a != want[0] || b != want[1] {
			t.Errorf("KernelVersion(%q) = %d.%d", in, a, b)
		}
	}
}
