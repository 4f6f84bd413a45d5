package sysv

import (
	"reflect"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

func TestCheckShmMaxAndTotals(t *testing.T) {
	k := Kernel{ShmMaxBytes: 4 << 30, ShmAllPages: 2097152, ShmMni: 3, PageSizeBytes: 4096}
	segs := []SegmentInfo{seg(1, 0, 6<<30, HugeYes, 2*mib), seg(2, 0, 4<<30, HugeNo, 4096), seg(3, 0, 56, HugeNo, 4096)}
	over := CheckShmMax(segs, k)
	if want := []OverShmMax{{ID: 1, SizeBytes: 6 << 30, ShmMaxBytes: 4 << 30}}; !reflect.DeepEqual(over, want) {
		t.Errorf("CheckShmMax = %+v, want %+v", over, want)
	}
	tot := CheckTotals(segs, k)
	if tot.Pages != (10<<30)/4096+1 || !tot.OverShmAll() || !tot.OverShmMni() {
		t.Errorf("totals = %+v: want %d pages, over shmall (8 GiB of pages) and at shmmni", tot, (10<<30)/4096+1)
	}
	k.ShmAllPages, k.ShmMni = 1<<40, 4096
	if tot := CheckTotals(segs, k); tot.OverShmAll() || tot.OverShmMni() {
		t.Errorf("totals within limits reported over: %+v", tot)
	}
}

func TestCheckHugePageCandidates(t *testing.T) {
	big := seg(1, 0, 4<<30, HugeNo, 4096)
	big.Attachments = []Attachment{{PID: 10}, {PID: 11}, {PID: 12}}
	segs := []SegmentInfo{big, seg(2, 0, 8<<30, HugeYes, 2*mib), seg(3, 0, 512*mib, HugeNo, 4096), seg(4, 0, 2<<30, HugeUnknown, 0)}
	got := CheckHugePageCandidates(segs, DefaultCandidateBytes, 2*mib)
	want := []HugePageCandidate{{
		ID: 1, SizeBytes: 4 << 30, PageSizeBytes: 4096, Attachers: []int{10, 11, 12},
		PageTableBytesPerProcess: 8 * mib, PageTableBytesAll: 24 * mib, // size/512
		HugePages: new(uint64(2048)), HugePageTableBytesPerProcess: new(uint64(16 << 10)),
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestCheckOrphans(t *testing.T) {
	held := seg(1, 27, 64*mib, HugeUnknown, 0)
	held.RSSBytes, held.SwapBytes, held.CreatorPID, held.DetachTime = u64(48*mib), u64(16*mib), 900, 1700000000
	old := seg(2, 0, 1*mib, HugeUnknown, 0) // kernel without rss/swap
	used := seg(3, 0, 1*mib, HugeNo, 4096)
	used.Attached = 2
	got := CheckOrphans([]SegmentInfo{held, old, used}, Kernel{PageSizeBytes: 4096})
	want := []Orphan{
		{ID: 1, UID: 27, SizeBytes: 64 * mib, CreatorPID: 900, DetachTime: 1700000000, HeldBytes: 64 * mib, HeldKnown: true, Huge: HugeUnknown},
		{ID: 2, SizeBytes: 1 * mib, Huge: HugeUnknown},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

// rightsSnapshot has one SHM_HUGETLB segment of 6 MiB owned by uid 1000,
// created by PID 50 and attached by 50 and 51 (51 is another user).
func rightsSnapshot(creds linux.Creds, memlock uint64) Snapshot {
	s := seg(7, 1000, 6*mib, HugeYes, 2*mib)
	s.CreatorPID = 50
	s.Attachments = []Attachment{{PID: 50}, {PID: 51}}
	creds.EUID = 1000
	return Snapshot{
		Kernel:   Kernel{HugetlbShmGroup: 2000},
		Segments: []SegmentInfo{s},
		Processes: map[int]Process{
			50: {PID: 50, Creds: creds, Memlock: &linux.Limit{Name: linux.LimitMemlock, Soft: memlock, Hard: memlock}},
			51: {PID: 51, Creds: linux.Creds{EUID: 0, CapEff: 1 << 14}},
		},
	}
}

func TestCheckHugetlbRights(t *testing.T) {
	cases := []struct {
		name    string
		creds   linux.Creds
		memlock uint64
		want    RightsProblem // "" for no finding
	}{
		{"in hugetlb_shm_group, memlock unlimited", linux.Creds{FSGID: 2000}, linux.Unlimited, ""},
		{"supplementary group, memlock unlimited", linux.Creds{Groups: []uint32{5, 2000}}, linux.Unlimited, ""},
		{"CAP_IPC_LOCK", linux.Creds{CapEff: 1 << 14}, linux.Unlimited, ""},
		{"group but 64 KiB memlock", linux.Creds{FSGID: 2000}, 64 << 10, MemlockBelowSize},
		{"no right, 8 MiB memlock", linux.Creds{}, 8 * mib, MemlockOnly},
		{"no right, 64 KiB memlock", linux.Creds{}, 64 << 10, NoRight},
	}
	for _, c := range cases {
		got := CheckHugetlbRights(rightsSnapshot(c.creds, c.memlock))
		switch {
		case c.want == "" && len(got) != 0:
			t.Errorf("%s: unexpected %+v", c.name, got)
		case c.want != "" && (len(got) != 1 || got[0].Problem != c.want):
			t.Errorf("%s: got %+v, want %s", c.name, got, c.want)
		case c.want != "":
			o := got[0].Owner
			if o.UID != 1000 || !reflect.DeepEqual(o.PIDs, []int{50}) || o.NeededBytes != 6*mib || o.MemlockBytes != c.memlock {
				t.Errorf("%s: owner %+v", c.name, o)
			}
		}
	}
}

// A segment whose owner has no readable process is not judged.
func TestCheckHugetlbRightsUnknownOwner(t *testing.T) {
	s := rightsSnapshot(linux.Creds{}, 0)
	delete(s.Processes, 50)
	if got := CheckHugetlbRights(s); len(got) != 0 {
		t.Errorf("got %+v, want nothing", got)
	}
	o := HugetlbOwners(s)
	if len(o) != 1 || o[0].Known() || o[0].Privileged() || o[0].MemlockKnown {
		t.Errorf("owners = %+v", o)
	}
}

// Measured on Linux 6.18: the rss column of a SHM_HUGETLB segment is 512
// times its resident size (8 MiB touched showed 4 GiB).
func TestResidentBytesHugetlbOvercount(t *testing.T) {
	cases := []struct {
		name string
		s    SegmentInfo
		rss  uint64
		want uint64
	}{
		{"huge, over-counted", seg(1, 0, 8*mib, HugeYes, 2*mib), 4 << 30, 8 * mib},
		{"huge, 5 MiB + 1 in 3 pages", seg(1, 0, 5*mib+1, HugeYes, 2*mib), 3 << 30, 6 * mib},
		{"huge, kernel counting right", seg(1, 0, 8*mib, HugeYes, 2*mib), 8 * mib, 8 * mib},
		{"huge, half touched, counting right", seg(1, 0, 8*mib, HugeYes, 2*mib), 4 * mib, 4 * mib},
		{"4 KiB pages", seg(1, 0, 64*mib, HugeNo, 4096), 64 * mib, 64 * mib},
	}
	for _, c := range cases {
		c.s.RSSBytes = u64(c.rss)
		if got, ok := c.s.ResidentBytes(4096); !ok || got != c.want {
			t.Errorf("%s: got %d, %v; want %d", c.name, got, ok, c.want)
		}
	}
	if _, ok := seg(1, 0, 1, HugeNo, 4096).ResidentBytes(4096); ok {
		t.Error("no rss column should give ok=false")
	}
}

func TestInferHugeByRSS(t *testing.T) {
	orphan := seg(1, 0, 8*mib, HugeUnknown, 0)
	orphan.RSSBytes = u64(4 << 30)
	plain := seg(2, 0, 8*mib, HugeUnknown, 0)
	plain.RSSBytes = u64(8 * mib)
	s := Snapshot{Kernel: Kernel{HugePageSizeBytes: new(uint64(2 * mib)), PageSizeBytes: 4096}, Segments: []SegmentInfo{orphan, plain}}
	s.inferHugeByRSS()
	if g := s.Segments[0]; g.Huge != HugeYes || !g.HugeByRSS || g.PageSizeBytes != 2*mib {
		t.Errorf("over-counted orphan: %+v", g)
	}
	if g := s.Segments[1]; g.Huge != HugeUnknown || g.HugeByRSS {
		t.Errorf("plain orphan: %+v", g)
	}
}
