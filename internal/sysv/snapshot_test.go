package sysv

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// Read on the recorded tree: PostgreSQL 15's interlock segment, attached by
// the two recorded processes, in 4 KiB pages, owned by postgres (uid 101).
func TestReadRecordedTree(t *testing.T) {
	s, err := Read(linux.FS{Proc: "testdata/proc-6.18"})
	if err != nil {
		t.Fatal(err)
	}
	if s.Kernel.Release != "6.18.44-fc-v769" || s.Kernel.ShmMni != 4096 || s.Kernel.HugetlbShmGroup != 0 ||
		s.Kernel.HugePageSizeBytes != 2<<20 || s.Kernel.ShmMaxBytes != 18446744073692774399 {
		t.Errorf("kernel = %+v", s.Kernel)
	}
	if len(s.Segments) != 1 {
		t.Fatalf("got %d segments, want 1", len(s.Segments))
	}
	seg := s.Segments[0]
	if got := seg.PIDs(); !reflect.DeepEqual(got, []int{2233, 2234}) {
		t.Errorf("attaching PIDs = %v, want [2233 2234]", got)
	}
	if seg.Huge != HugeNo || seg.PageSizeBytes != 4096 || seg.PageSizeFrom != 2233 {
		t.Errorf("page size: %s %d from %d, want no 4096 from 2233", seg.Huge, seg.PageSizeBytes, seg.PageSizeFrom)
	}
	a := seg.Attachments[0]
	if a.Bytes != 4096 || a.Mappings != 1 || a.StartAddr != 0x7f7eaee1f000 || a.ReadOnly {
		t.Errorf("attachment = %+v", a)
	}
	p := s.Processes[2233]
	if p.Creds.EUID != 101 || p.Memlock == nil || p.Memlock.Soft != 8<<20 || p.Creds.CapIPCLock() {
		t.Errorf("postmaster = %+v", p)
	}
	if s.Degraded.ProcessesScanned != 2 || !s.Degraded.Complete() || len(s.Degraded.OtherIPCNS) != 0 {
		t.Errorf("degraded = %+v", s.Degraded)
	}
}

func TestParseCreds(t *testing.T) {
	f, err := os.Open("testdata/proc-6.18/2233/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := parseCreds(f)
	if err != nil {
		t.Fatal(err)
	}
	want := Creds{UID: 101, EUID: 101, GID: 104, FSGID: 104, Groups: []uint32{103, 104}, HaveCapEff: true, CommandName: "postgres"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if !c.InGroup(103) || c.InGroup(0) {
		t.Errorf("InGroup: 103 %v, 0 %v", c.InGroup(103), c.InGroup(0))
	}
	root := Creds{CapEff: 0x000001fffeffffff}
	if !root.CapIPCLock() {
		t.Error("CapEff 1fffeffffff has CAP_IPC_LOCK (bit 14)")
	}
}

func TestParseCredsMalformed(t *testing.T) {
	for _, in := range []string{"Name: x\n", "Uid: 1 2 3\nGid: 1 1 1 1\n", "Uid: 1 1 1 1\nGid: 1 1 1 1\nGroups: a\n", "Uid: 1 1 1 1\nGid: 1 1 1 1\nCapEff: zz\n"} {
		if _, err := parseCreds(strings.NewReader(in)); err == nil {
			t.Errorf("no error for %q", in)
		}
	}
}

func FuzzParseCreds(f *testing.F) {
	b, err := os.ReadFile("testdata/proc-6.18/2233/status")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, in string) {
		c, err := parseCreds(strings.NewReader(in))
		if err == nil {
			c.InGroup(0)
		}
	})
}

func TestParseSmapsSysV(t *testing.T) {
	f, err := os.Open("testdata/proc-6.18/2233/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := parseSmapsSysV(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]pageInfo{4: {KernelPageSizeBytes: 4096, HaveVmFlags: true}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v, want %+v (the /dev/zero mapping is not SysV)", m, want)
	}
}

func TestSysvShmID(t *testing.T) {
	for path, want := range map[string]bool{
		"/SYSV000b6050 (deleted)": true,
		"/SYSV00000000 (deleted)": true,
		"/SYSV000b6050":           false, // a file of that name, not a segment
		"/SYSV000B6050 (deleted)": false,
		"/SYSV0b6050 (deleted)":   false,
		"/dev/zero (deleted)":     false,
	} {
		if _, ok := sysvShmID(linux.Mapping{Path: path, Inode: 4}); ok != want {
			t.Errorf("%q: got %v, want %v", path, ok, want)
		}
	}
}

func FuzzParseSmapsSysV(f *testing.F) {
	b, err := os.ReadFile("testdata/proc-6.18/2233/smaps")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("7f-80 rw-s 00000000 00:01 4 /SYSV00000000 (deleted)\nKernelPageSize: 2048 kB\nVmFlags: rd wr sh ht\n")
	f.Fuzz(func(t *testing.T, in string) {
		m, err := parseSmapsSysV(strings.NewReader(in))
		if err == nil {
			for id, p := range m {
				if p.hugetlb(4096) && !p.HT && p.HaveVmFlags {
					t.Errorf("shmid %d: hugetlb without the ht flag", id)
				}
			}
		}
	})
}

func FuzzParseHugeMeminfo(f *testing.F) {
	b, err := os.ReadFile("testdata/proc-6.18/meminfo")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, in string) {
		var k Kernel
		if parseHugeMeminfo(strings.NewReader(in), &k) == nil {
			k.HugePagesInUse()
		}
	})
}

// testdata/smaps-6.18-shmtool.txt: a process attaching a SHM_HUGETLB
// segment (2048 kB pages, VmFlags ht) and a 4 KiB one, Linux 6.18.44.
func TestParseSmapsSysVHugetlb(t *testing.T) {
	f, err := os.Open("testdata/smaps-6.18-shmtool.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := parseSmapsSysV(f)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]pageInfo{
		32782: {KernelPageSizeBytes: 2 << 20, HaveVmFlags: true, HT: true},
		32783: {KernelPageSizeBytes: 4096, HaveVmFlags: true},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v, want %+v", m, want)
	}
	if !m[32782].hugetlb(4096) || m[32783].hugetlb(4096) {
		t.Error("hugetlb() disagrees with the ht flag")
	}
	noFlags := pageInfo{KernelPageSizeBytes: 2 << 20}
	if !noFlags.hugetlb(4096) {
		t.Error("without VmFlags a 2 MiB KernelPageSize means hugetlb")
	}
}

// testdata/shm-6.18-test.txt: the segments of TestRealHugetlbSegments.
// The rss column of the SHM_HUGETLB ones is 512 times what they hold.
func TestParseShmHugetlbRecorded(t *testing.T) {
	f, err := os.Open("testdata/shm-6.18-test.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	segs, err := parseShm(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 5 || segs[1].SizeBytes != 8<<20 || *segs[1].RSSBytes != 4<<30 || segs[3].KeyHex() != "64635c48" {
		t.Fatalf("parsed %+v", segs)
	}
	huge := SegmentInfo{Segment: segs[1], Huge: HugeYes, PageSizeBytes: 2 << 20}
	if got, _ := huge.ResidentBytes(4096); got != 8<<20 {
		t.Errorf("resident = %d, want 8 MiB", got)
	}
}
