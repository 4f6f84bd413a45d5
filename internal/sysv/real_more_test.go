package sysv

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbmem/dbmem/internal/kerneltest"
)

// Segments left behind by a process that exited: one in 4 KiB pages and
// one in huge pages, whose over-counted rss tells it is huge.
func TestRealOrphans(t *testing.T) {
	shmtool(t)
	kerneltest.AddHugePages(t, 2)
	plain := startHelper(t, nil, "create", "-detach", "-size", mustSize(4*mib))
	huge := startHelper(t, nil, "create", "-detach", "-huge", "-size", mustSize(4*mib))
	plain.cmd.Wait() // -detach: it exits after "ready"
	huge.cmd.Wait()
	s := readLive(t)
	got := map[int]Orphan{}
	for _, o := range CheckOrphans(s.Segments, s.Kernel) {
		got[o.ID] = o
	}
	if o, ok := got[plain.ID]; !ok || !o.HeldKnown || o.HeldBytes != 4*mib || o.Huge != HugeUnknown || o.CreatorPID != plain.PID {
		t.Errorf("4 KiB orphan = %+v (found %v), want 4 MiB held", o, ok)
	}
	if o, ok := got[huge.ID]; !ok || o.HeldBytes != 4*mib || o.Huge != HugeYes {
		t.Errorf("huge orphan = %+v (found %v), want 4 MiB held, huge by its rss", o, ok)
	}
	seg := findSegment(t, s, huge.ID)
	t.Logf("huge orphan: rss column %d for %d bytes", *seg.RSSBytes, seg.SizeBytes)
	if !seg.HugeByRSS || len(seg.Attachments) != 0 {
		t.Errorf("huge orphan segment = %+v", seg)
	}
}

// The kernel's rule for SHM_HUGETLB, checked with a real unprivileged user:
// memlock alone is refused, the group vm.hugetlb_shm_group is enough, and
// CheckHugetlbRights reads the same rights from /proc.
func TestRealHugetlbRights(t *testing.T) {
	uid, gid := nobody(t)
	kerneltest.AddHugePages(t, 2)
	as := []string{"-uid", uid, "-gid", gid, "-groups", gid}
	kerneltest.Sysctl(t, "vm.hugetlb_shm_group", "0")

	// 8 MiB memlock (the hard limit here; raising it needs CAP_SYS_RESOURCE)
	// covers a 2 MiB segment, yet the kernel refuses it.
	_, stderr, err := runShmtool(t, append([]string{"create", "-huge", "-size", mustSize(2 * mib), "-memlock", mustSize(8 * mib)}, as...)...)
	if err == nil {
		t.Errorf("SHM_HUGETLB as uid %s without group or CAP_IPC_LOCK was accepted (kernel older than the memlock removal?)", uid)
	} else if !strings.Contains(stderr, "operation not permitted") {
		t.Errorf("want EPERM, got %v: %s", err, stderr)
	}

	kerneltest.Sysctl(t, "vm.hugetlb_shm_group", gid)
	h := startHelper(t, nil, append([]string{"create", "-huge", "-size", mustSize(2 * mib), "-memlock", "65536"}, as...)...)
	s := readLive(t)
	p := s.Processes[h.PID]
	if strconv.Itoa(int(p.Creds.EUID)) != uid || p.Creds.CapIPCLock() || p.Memlock == nil || p.Memlock.Soft != 65536 {
		t.Errorf("helper as %s = %+v", uid, p)
	}
	want := []RightsFinding{{Problem: MemlockBelowSize}}
	checkRights(t, "in group, 64 KiB memlock", s, h, want)

	kerneltest.Sysctl(t, "vm.hugetlb_shm_group", "0")
	checkRights(t, "group taken away", readLive(t), h, []RightsFinding{{Problem: NoRight}})
}

func checkRights(t *testing.T, name string, s Snapshot, h *helper, want []RightsFinding) {
	t.Helper()
	var got []RightsFinding
	for _, f := range CheckHugetlbRights(s) {
		if slices.Contains(f.Owner.Segments, h.ID) {
			got = append(got, f)
		}
	}
	if len(got) != len(want) || got[0].Problem != want[0].Problem {
		t.Fatalf("%s: got %+v, want %+v", name, got, want)
	}
	o := got[0].Owner
	if !slices.Equal(o.PIDs, []int{h.PID}) || o.NeededBytes != 2*mib || o.MemlockBytes != 65536 {
		t.Errorf("%s: owner = %+v", name, o)
	}
}

// A process in another IPC namespace (a container) maps a segment with the
// same shmid as one of ours: it must not be taken for an attacher.
func TestRealOtherIPCNamespace(t *testing.T) {
	host := startHelper(t, nil, "create", "-size", mustSize(1*mib))
	ns := startHelper(t, &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWIPC},
		"create", "-size", mustSize(1*mib), "-next-id", strconv.Itoa(host.ID))
	if ns.ID != host.ID {
		t.Fatalf("namespaced segment got shmid %d, want the colliding %d", ns.ID, host.ID)
	}
	s := readLive(t)
	if got := findSegment(t, s, host.ID).PIDs(); !slices.Equal(got, []int{host.PID}) {
		t.Errorf("attachers of %d = %v, want only %d (not %d of the other namespace)", host.ID, got, host.PID, ns.PID)
	}
	if !slices.Contains(s.Degraded.OtherIPCNS, ns.PID) {
		t.Errorf("OtherIPCNS = %v, want %d in it", s.Degraded.OtherIPCNS, ns.PID)
	}
}

// Read as an unprivileged user: segments are listed, other users'
// processes are counted as denied.
func TestRealUnprivilegedScan(t *testing.T) {
	uid, gid := nobody(t)
	h := startHelper(t, nil, "create", "-size", mustSize(1*mib))
	out, stderr, err := runShmtool(t, "scan", "-uid", uid, "-gid", gid)
	if err != nil {
		t.Fatalf("scan as %s: %v: %s", uid, err, stderr)
	}
	var s Snapshot
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	seg := findSegment(t, s, h.ID)
	if seg.SizeBytes != 1*mib || len(seg.Attachments) != 0 || seg.Huge != HugeUnknown {
		t.Errorf("segment seen by %s = %+v", uid, seg)
	}
	if !slices.Contains(s.Degraded.Denied, h.PID) || s.Degraded.Complete() {
		t.Errorf("degraded = %+v, want %d among the denied", s.Degraded, h.PID)
	}
	t.Logf("as uid %s: %d processes read, %d denied", uid, s.Degraded.ProcessesScanned, len(s.Degraded.Denied))
}
