package sysv

import (
	"fmt"
	"os"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
)

// Kernel holds the kernel limits and pool figures that SysV shared memory
// is checked against.
type Kernel struct {
	Release         string // kernel.osrelease
	ShmMaxBytes     uint64 // kernel.shmmax: largest segment
	ShmAllPages     uint64 // kernel.shmall: all segments together, in pages of PageSizeBytes
	ShmMni          uint64 // kernel.shmmni: number of segments
	HugetlbShmGroup uint32 // vm.hugetlb_shm_group: gid that may create SHM_HUGETLB without CAP_IPC_LOCK
	PageSizeBytes   uint64 // base page (PAGE_SIZE): a segment's in base pages, else the running process's

	// From /proc/meminfo (default huge page size only); nil when meminfo
	// has no such line.
	HugePageSizeBytes *uint64 `json:",omitempty"`
	HugePagesTotal    *uint64 `json:",omitempty"`
	HugePagesFree     *uint64 `json:",omitempty"`
	HugePagesRsvd     *uint64 `json:",omitempty"`
	HugePagesSurp     *uint64 `json:",omitempty"`
}

// HugePageSize is the default huge page size, 0 when unknown (the
// functions of this package that take a page size treat 0 as unknown).
func (k Kernel) HugePageSize() uint64 {
	if k.HugePageSizeBytes == nil {
		return 0
	}
	return *k.HugePageSizeBytes
}

// HugePagesInUse is Total - Free + Rsvd: pages faulted in plus pages
// reserved by mappings (reserved pages still count as free); ok is false
// when a count is unknown.
func (k Kernel) HugePagesInUse() (uint64, bool) {
	if k.HugePagesTotal == nil || k.HugePagesFree == nil || k.HugePagesRsvd == nil {
		return 0, false
	}
	return *k.HugePagesTotal - min(*k.HugePagesFree, *k.HugePagesTotal) + *k.HugePagesRsvd, true
}

// ReadKernel reads the SysV limits from /proc/sys and the default huge page
// pool from /proc/meminfo.
func ReadKernel(fs linux.FS) (Kernel, error) {
	k := Kernel{PageSizeBytes: uint64(os.Getpagesize())}
	var err error
	if k.Release, err = linux.KernelRelease(fs); err != nil {
		return k, err
	}
	var group uint64
	for _, v := range []struct {
		dst  *uint64
		name string
	}{
		{&k.ShmMaxBytes, "kernel.shmmax"}, {&k.ShmAllPages, "kernel.shmall"},
		{&k.ShmMni, "kernel.shmmni"}, {&group, "vm.hugetlb_shm_group"},
	} {
		if *v.dst, err = sysctlUint(fs, v.name); err != nil {
			return k, err
		}
	}
	k.HugetlbShmGroup = uint32(group)
	m, err := linux.ReadMeminfo(fs)
	if err != nil {
		return k, err
	}
	k.setPool(m)
	return k, nil
}

// setPool copies the default huge page pool from meminfo.
func (k *Kernel) setPool(m linux.Meminfo) {
	k.HugePageSizeBytes, k.HugePagesTotal, k.HugePagesFree = m.HugepagesizeBytes, m.HugePagesTotal, m.HugePagesFree
	k.HugePagesRsvd, k.HugePagesSurp = m.HugePagesRsvd, m.HugePagesSurp
}

func sysctlUint(fs linux.FS, name string) (uint64, error) {
	v, err := linux.ReadSysctl(fs, name)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s = %q: not a number", name, v)
	}
	return n, nil
}
