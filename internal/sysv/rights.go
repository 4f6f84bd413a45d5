package sysv

import (
	"cmp"
	"slices"

	"github.com/dbmem/dbmem/internal/linux"
)

// HugetlbOwner is what one owner (uid) of SHM_HUGETLB segments needs and has.
// The rights are read from a representative process per segment: the
// creator if it still attaches the segment, else the attaching process of
// the owner's uid with the lowest PID.
type HugetlbOwner struct {
	UID         uint32
	Segments    []int  // shmids
	NeededBytes uint64 // sum of their sizes: the memlock Oracle and MySQL ask for
	PIDs        []int  // representative processes read; empty if none was readable

	MemlockBytes uint64 // smallest soft RLIMIT_MEMLOCK among PIDs; linux.Unlimited for unlimited
	MemlockKnown bool
	ShmGroup     uint32 // vm.hugetlb_shm_group
	InShmGroup   bool   // every PID is in ShmGroup (fsgid or supplementary group)
	CapIPCLock   bool   // every PID has CAP_IPC_LOCK in its effective set
}

// Known reports whether a process of the owner was read.
func (o HugetlbOwner) Known() bool { return len(o.PIDs) > 0 }

// Privileged reports the right the kernel checks when it creates a
// SHM_HUGETLB segment: CAP_IPC_LOCK or membership of vm.hugetlb_shm_group.
func (o HugetlbOwner) Privileged() bool { return o.InShmGroup || o.CapIPCLock }

// MemlockShort reports a memlock limit below the sizes of the segments.
func (o HugetlbOwner) MemlockShort() bool { return o.MemlockKnown && o.MemlockBytes < o.NeededBytes }

// HugetlbOwners returns, by uid, the owners of the segments in huge pages.
func HugetlbOwners(s Snapshot) []HugetlbOwner {
	owners := map[uint32]*HugetlbOwner{}
	for _, seg := range s.Segments {
		if seg.Huge != HugeYes {
			continue
		}
		o := owners[seg.UID]
		if o == nil {
			o = &HugetlbOwner{UID: seg.UID, ShmGroup: s.Kernel.HugetlbShmGroup, MemlockBytes: linux.Unlimited,
				InShmGroup: true, CapIPCLock: true}
			owners[seg.UID] = o
		}
		o.Segments = append(o.Segments, seg.ID)
		o.NeededBytes += seg.SizeBytes
		if p, ok := representative(seg, s.Processes); ok {
			o.addProcess(p)
		}
	}
	out := make([]HugetlbOwner, 0, len(owners))
	for _, o := range owners {
		if !o.Known() {
			o.InShmGroup, o.CapIPCLock = false, false
		}
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b HugetlbOwner) int { return cmp.Compare(a.UID, b.UID) })
	return out
}

func (o *HugetlbOwner) addProcess(p Process) {
	if !slices.Contains(o.PIDs, p.PID) {
		o.PIDs = append(o.PIDs, p.PID)
	}
	o.InShmGroup = o.InShmGroup && p.Creds.InGroup(o.ShmGroup)
	o.CapIPCLock = o.CapIPCLock && p.Creds.CapIPCLock()
	if p.Memlock != nil {
		o.MemlockBytes = min(o.MemlockBytes, p.Memlock.Soft)
		o.MemlockKnown = true
	}
}

// representative picks the process whose rights stand for the segment's owner.
func representative(seg SegmentInfo, procs map[int]Process) (Process, bool) {
	best, found := Process{}, false
	for _, a := range seg.Attachments {
		p, ok := procs[a.PID]
		if !ok || p.Creds.EUID != seg.UID {
			continue
		}
		if a.PID == seg.CreatorPID {
			return p, true
		}
		if !found || p.PID < best.PID {
			best, found = p, true
		}
	}
	return best, found
}

// RightsProblem names why an owner could not create its SHM_HUGETLB
// segments again (at the next restart of the database).
type RightsProblem string

const (
	// NoRight: neither CAP_IPC_LOCK nor vm.hugetlb_shm_group, and a memlock
	// limit below the segments: shmget fails with EPERM on every kernel.
	NoRight RightsProblem = "no-right"
	// MemlockOnly: neither CAP_IPC_LOCK nor the group, but a memlock limit
	// that covers the segments. Old kernels accept that with the warning
	// "Using mlock ulimits for SHM_HUGETLB is deprecated"; newer kernels
	// refuse it with EPERM (measured: Linux 6.18 refuses).
	MemlockOnly RightsProblem = "memlock-only"
	// MemlockBelowSize: the kernel right is there, but memlock is below the
	// segments' size. The kernel does not need it; Oracle checks it at
	// startup and MySQL's documentation asks for it.
	MemlockBelowSize RightsProblem = "memlock-below-size"
)

// RightsFinding is an owner of SHM_HUGETLB segments with a problem.
type RightsFinding struct {
	Owner   HugetlbOwner
	Problem RightsProblem
}

// Problem is why the owner could not create its segments again, or the
// memlock it lacks; false when nothing is wrong or no process was read.
func (o HugetlbOwner) Problem() (RightsProblem, bool) {
	switch {
	case !o.Known():
	case !o.Privileged() && (o.MemlockShort() || !o.MemlockKnown):
		return NoRight, true
	case !o.Privileged():
		return MemlockOnly, true
	case o.MemlockShort():
		return MemlockBelowSize, true
	}
	return "", false
}

// CheckHugetlbRights returns the owners of SHM_HUGETLB segments whose
// processes could not create them again, or lack the memlock the databases
// ask for. Owners with no readable process are not judged.
func CheckHugetlbRights(s Snapshot) []RightsFinding {
	var out []RightsFinding
	for _, o := range HugetlbOwners(s) {
		if p, bad := o.Problem(); bad {
			out = append(out, RightsFinding{o, p})
		}
	}
	return out
}
