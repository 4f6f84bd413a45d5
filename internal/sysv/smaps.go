package sysv

import (
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// pageInfo is what one process's smaps tells about a SysV mapping.
type pageInfo struct {
	KernelPageSizeBytes uint64
	Hugetlb             bool // VmFlags "ht" (VM_HUGETLB), or a page above 4 KiB on kernels without VmFlags
}

// sysvShmID returns the shmid of a SysV shared memory mapping: its name is
// "/SYSV%08x (deleted)" (the key in hex, 00000000 for IPC_PRIVATE) and its
// inode is the shmid.
func sysvShmID(m linux.Mapping) (int, bool) {
	name, ok := strings.CutPrefix(m.Path, "/SYSV")
	if !ok {
		return 0, false
	}
	name, ok = strings.CutSuffix(name, " (deleted)")
	if !ok || len(name) != 8 || !isLowerHex(name) || m.Inode > 1<<31-1 {
		return 0, false
	}
	return int(m.Inode), true
}

func isSysV(m linux.Mapping) bool { _, ok := sysvShmID(m); return ok }

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// readSmapsSysV reads the SysV mappings of /proc/PID/smaps. Reading smaps
// walks the page tables of the whole process: read one process per segment.
func readSmapsSysV(fs linux.FS, pid int) (map[int]pageInfo, error) {
	entries, err := linux.ReadSmaps(fs, pid, isSysV)
	if err != nil {
		return nil, err
	}
	return sysvPageInfo(entries), nil
}

// sysvPageInfo returns, by shmid, the page size of each SysV mapping.
func sysvPageInfo(entries []linux.SmapsEntry) map[int]pageInfo {
	out := map[int]pageInfo{}
	for _, e := range entries {
		id, ok := sysvShmID(e.Mapping)
		if !ok {
			continue
		}
		if p, seen := out[id]; seen && p.KernelPageSizeBytes != 0 {
			continue
		}
		out[id] = pageInfo{KernelPageSizeBytes: e.KernelPageSizeBytes, Hugetlb: e.Hugetlb()}
	}
	return out
}
