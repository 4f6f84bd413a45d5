package sysv

import (
	"flag"
	"os"
	"reflect"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/dbmem/dbmem/internal/kerneltest"
)

var record = flag.Bool("sysv.record", false, "rewrite testdata/shm-6.18-test.txt and smaps-6.18-shmtool.txt from real segments")

// A 64 MiB segment in 4 KiB pages attached by two processes, and a small
// one removed (IPC_RMID) while still attached.
func TestRealSegments(t *testing.T) {
	key := 0x64620000 | os.Getpid()&0xffff
	h1 := startHelper(t, nil, "create", "-size", mustSize(64*mib), "-key", strconv.Itoa(key))
	h2 := startHelper(t, nil, "attach", "-id", strconv.Itoa(h1.ID))
	gone := startHelper(t, nil, "create", "-size", "8192", "-key", strconv.Itoa(key+1))
	if _, err := unix.SysvShmCtl(gone.ID, unix.IPC_RMID, nil); err != nil {
		t.Fatal(err)
	}
	s := readLive(t)

	seg := findSegment(t, s, h1.ID)
	if seg.Key != int32(key) || seg.SizeBytes != 64*mib || seg.Attached != 2 || seg.CreatorPID != h1.PID {
		t.Errorf("segment = %+v", seg.Segment)
	}
	if got, want := seg.PIDs(), []int{h1.PID, h2.PID}; !reflect.DeepEqual(got, want) {
		t.Errorf("attaching PIDs = %v, want %v", got, want)
	}
	if seg.Huge != HugeNo || seg.PageSizeBytes != 4096 {
		t.Errorf("huge %s page %d, want no and 4096", seg.Huge, seg.PageSizeBytes)
	}
	if seg.RSSBytes == nil || *seg.RSSBytes != 64*mib {
		t.Errorf("rss = %v, want 64 MiB (the helpers touched every page)", seg.RSSBytes)
	}
	c := CheckHugePageCandidates([]SegmentInfo{seg}, 32*mib, 2*mib)
	if len(c) != 1 || c[0].PageTableBytesPerProcess != 128<<10 || c[0].PageTableBytesAll != 256<<10 || *c[0].HugePages != 32 {
		t.Errorf("candidate = %+v, want 128 KiB of page table per process (64 MiB / 512), 2 processes, 32 huge pages", c)
	}
	if p := s.Processes[h1.PID]; p.Creds.EUID != 0 || !p.Creds.CapIPCLock() || p.Memlock == nil {
		t.Errorf("helper process = %+v", p)
	}
	// Removed but attached: key 0 and SHM_DEST; found by its shmid though
	// the mapping keeps the old key in its name.
	g := findSegment(t, s, gone.ID)
	if !g.Destroyed() || g.Key != 0 || !reflect.DeepEqual(g.PIDs(), []int{gone.PID}) {
		t.Errorf("removed segment = %+v attached by %v", g.Segment, g.PIDs())
	}
}

// SHM_HUGETLB segments: the pool computed from their sizes is what the
// kernel takes from the pool.
func TestRealHugetlbSegments(t *testing.T) {
	shmtool(t)
	kerneltest.AddHugePages(t, 8)
	before := readLive(t).Kernel
	sizes := []uint64{8 * mib, 5*mib + 1, 2 * mib}
	var hs []*helper
	for i, size := range sizes {
		args := []string{"create", "-huge", "-size", mustSize(size)}
		if i == 2 {
			args = append(args, "-key", strconv.Itoa(0x64630000|os.Getpid()&0xffff))
		}
		hs = append(hs, startHelper(t, nil, args...))
	}
	second := startHelper(t, nil, "attach", "-id", strconv.Itoa(hs[0].ID))
	s := readLive(t)

	var ours []SegmentInfo
	for i, h := range hs {
		seg := findSegment(t, s, h.ID)
		ours = append(ours, seg)
		if seg.Huge != HugeYes || seg.PageSizeBytes != 2*mib || seg.SizeBytes != sizes[i] {
			t.Errorf("segment %d: huge %s page %d size %d; want yes, 2 MiB, %d", h.ID, seg.Huge, seg.PageSizeBytes, seg.SizeBytes, sizes[i])
		}
		t.Logf("segment %d: size %d rss %d", seg.ID, seg.SizeBytes, *seg.RSSBytes)
	}
	if got, want := ours[0].PIDs(), []int{hs[0].PID, second.PID}; !reflect.DeepEqual(got, want) || ours[0].Attached != 2 {
		t.Errorf("attaching PIDs = %v (nattch %d), want %v", got, ours[0].Attached, want)
	}
	need := HugePagesNeeded(ours, s.Kernel.HugePageSize())
	now, ok1 := s.Kernel.HugePagesInUse()
	then, ok2 := before.HugePagesInUse()
	if !ok1 || !ok2 {
		t.Fatal("huge pages in use unknown on this kernel")
	}
	used := now - then
	t.Logf("pool: kernel in use +%d, needed %d (Oracle's script: %d + 1 spare)", used, need.Total.HugetlbPages, need.Total.OraclePages)
	if need.Total.HugetlbPages != 4+3+1 || need.Total.HugetlbPages != used {
		t.Errorf("needed %d pages, kernel uses %d more, want both 8", need.Total.HugetlbPages, used)
	}
	// 8 MiB and 2 MiB are exact multiples: Oracle's script counts one more page each.
	if need.Total.OraclePages != 5+3+2 || need.Total.HugetlbBytes != 15*mib+1 {
		t.Errorf("oracle pages %d memlock %d, want 10 and 15 MiB + 1", need.Total.OraclePages, need.Total.HugetlbBytes)
	}
	if *record {
		recordFixtures(t, hs[2].ID)
	}
}

// recordFixtures writes /proc/sysvipc/shm and the smaps of a helper that
// attaches a 4 KiB segment and the huge page segment hugeID.
func recordFixtures(t *testing.T, hugeID int) {
	small := startHelper(t, nil, "create", "-size", mustSize(1*mib))
	both := startHelper(t, nil, "attach", "-id", strconv.Itoa(small.ID)+","+strconv.Itoa(hugeID))
	b, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/shm-6.18-test.txt", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err = os.ReadFile("/proc/" + strconv.Itoa(both.PID) + "/smaps"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("testdata/smaps-6.18-shmtool.txt", b, 0o644); err != nil {
		t.Fatal(err)
	}
}
