package sysv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

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
	PageSizeBytes   uint64 // base page (PAGE_SIZE); from the running process, not from fs

	// From /proc/meminfo (default huge page size only).
	HugePageSizeBytes uint64
	HugePagesTotal    uint64
	HugePagesFree     uint64
	HugePagesRsvd     uint64
	HugePagesSurp     uint64
}

// HugePagesInUse is Total - Free + Rsvd: pages faulted in plus pages
// reserved by mappings (reserved pages still count as free).
func (k Kernel) HugePagesInUse() uint64 {
	return k.HugePagesTotal - min(k.HugePagesFree, k.HugePagesTotal) + k.HugePagesRsvd
}

// ReadKernel reads the SysV limits from /proc/sys and the default huge page
// pool from /proc/meminfo.
func ReadKernel(fs linux.FS) (Kernel, error) {
	k := Kernel{PageSizeBytes: uint64(os.Getpagesize())}
	var err error
	if k.Release, err = readSysctl(fs, "kernel", "osrelease"); err != nil {
		return k, err
	}
	for _, v := range []struct {
		dst  *uint64
		elem []string
	}{
		{&k.ShmMaxBytes, []string{"kernel", "shmmax"}},
		{&k.ShmAllPages, []string{"kernel", "shmall"}},
		{&k.ShmMni, []string{"kernel", "shmmni"}},
	} {
		if *v.dst, err = readSysctlUint(fs, v.elem...); err != nil {
			return k, err
		}
	}
	g, err := readSysctlUint(fs, "vm", "hugetlb_shm_group")
	if err != nil {
		return k, err
	}
	k.HugetlbShmGroup = uint32(g)
	return k, readHugeMeminfo(fs, &k)
}

func readSysctl(fs linux.FS, elem ...string) (string, error) {
	path := fs.ProcPath(append([]string{"sys"}, elem...)...)
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

func readSysctlUint(fs linux.FS, elem ...string) (uint64, error) {
	s, err := readSysctl(fs, elem...)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s = %q: %w", strings.Join(elem, "."), s, err)
	}
	return v, nil
}

func readHugeMeminfo(fs linux.FS, k *Kernel) error {
	path := fs.ProcPath("meminfo")
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := parseHugeMeminfo(bytes.NewReader(b), k); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}

// parseHugeMeminfo takes Hugepagesize and HugePages_* from /proc/meminfo.
// A kernel without hugetlbfs has none of them; that leaves zeros.
func parseHugeMeminfo(r io.Reader, k *Kernel) error {
	dst := map[string]*uint64{
		"HugePages_Total": &k.HugePagesTotal, "HugePages_Free": &k.HugePagesFree,
		"HugePages_Rsvd": &k.HugePagesRsvd, "HugePages_Surp": &k.HugePagesSurp,
		"Hugepagesize": &k.HugePageSizeBytes,
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		p, ok := dst[key]
		if !ok {
			continue
		}
		f := strings.Fields(val)
		if len(f) == 0 {
			return fmt.Errorf("%s has no value", key)
		}
		v, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		if len(f) == 2 && f[1] == "kB" {
			v *= 1024
		}
		*p = v
	}
	return sc.Err()
}
