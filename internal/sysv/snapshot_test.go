package sysv

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
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
		s.Kernel.HugePageSize() != 2<<20 || s.Kernel.ShmMaxBytes != 18446744073692774399 {
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

func TestParseSmapsSysV(t *testing.T) {
	m := parseSmapsSysV(t, fixture(t, "proc-6.18/2233/smaps"))
	want := map[int]pageInfo{4: {KernelPageSizeBytes: 4096}}
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

// fixture opens testdata/name, closed when the test ends.
func fixture(t *testing.T, name string) io.Reader {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// parseShmFixture parses a recorded /proc/sysvipc/shm.
func parseShmFixture(t *testing.T, name string) []Segment {
	t.Helper()
	segs, err := parseShm(fixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return segs
}

// parseSmapsSysV parses recorded smaps text the way Read does.
func parseSmapsSysV(t *testing.T, r io.Reader) map[int]pageInfo {
	t.Helper()
	entries, err := linux.ParseSmaps(r, isSysV)
	if err != nil {
		t.Fatal(err)
	}
	return sysvPageInfo(entries)
}

func TestParseSmapsSysVHugetlb(t *testing.T) {
	m := parseSmapsSysV(t, fixture(t, "smaps-6.18-shmtool.txt"))
	want := map[int]pageInfo{
		32782: {KernelPageSizeBytes: 2 << 20, Hugetlb: true},
		32783: {KernelPageSizeBytes: 4096},
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v, want %+v", m, want)
	}
}

// testdata/shm-6.18-test.txt: the segments of TestRealHugetlbSegments.
// The rss column of the SHM_HUGETLB ones is 512 times what they hold.
func TestParseShmHugetlbRecorded(t *testing.T) {
	segs := parseShmFixture(t, "shm-6.18-test.txt")
	if len(segs) != 5 || segs[1].SizeBytes != 8<<20 || *segs[1].RSSBytes != 4<<30 || segs[3].KeyHex() != "64635c48" {
		t.Fatalf("parsed %+v", segs)
	}
	huge := SegmentInfo{Segment: segs[1], Huge: HugeYes, PageSizeBytes: 2 << 20}
	if got, _ := huge.ResidentBytes(4096); got != 8<<20 {
		t.Errorf("resident = %d, want 8 MiB", got)
	}
}
