package sysv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// pageInfo is what one process's smaps tells about a SysV mapping.
type pageInfo struct {
	KernelPageSizeBytes uint64
	HaveVmFlags         bool // VmFlags line present (kernel 3.8+)
	HT                  bool // VmFlags "ht": VM_HUGETLB
}

// hugetlb reports whether the mapping is in huge pages: the "ht" flag, or,
// on kernels without VmFlags, a page bigger than the base page.
func (p pageInfo) hugetlb(basePageBytes uint64) bool {
	if p.HaveVmFlags {
		return p.HT
	}
	return p.KernelPageSizeBytes > basePageBytes
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
	path := fs.ProcPath(strconv.Itoa(pid), "smaps")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	m, err := parseSmapsSysV(bytes.NewReader(b))
	if err != nil {
		return m, fmt.Errorf("parse %s: %w", path, err)
	}
	return m, nil
}

// parseSmapsSysV returns, by shmid, the page size of each SysV mapping in
// the text of /proc/PID/smaps.
func parseSmapsSysV(r io.Reader) (map[int]pageInfo, error) {
	out := map[int]pageInfo{}
	cur := -1 // shmid of the mapping whose fields follow, -1 for others
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if isSmapsHeader(line) {
			ms, err := linux.ParseMaps(strings.NewReader(line))
			if err != nil || len(ms) != 1 {
				return out, fmt.Errorf("line %d: mapping header %q: %v", n, line, err)
			}
			id, ok := sysvShmID(ms[0])
			if cur = -1; ok {
				cur = id
				if _, seen := out[id]; !seen {
					out[id] = pageInfo{} // a mapping without fields is still listed
				}
			}
			continue
		}
		if cur >= 0 {
			out[cur] = smapsField(out[cur], line)
		}
	}
	return out, sc.Err()
}

// isSmapsHeader reports whether line starts a mapping ("start-end perms ...").
func isSmapsHeader(line string) bool {
	rng, _, ok := strings.Cut(line, " ")
	if !ok {
		return false
	}
	lo, hi, ok := strings.Cut(rng, "-")
	return ok && lo != "" && hi != "" && isHexAny(lo) && isHexAny(hi)
}

func isHexAny(s string) bool { return isLowerHex(strings.ToLower(s)) }

// smapsField applies one "Key: value" line to p.
func smapsField(p pageInfo, line string) pageInfo {
	key, val, ok := strings.Cut(line, ":")
	if !ok {
		return p
	}
	switch key {
	case "KernelPageSize":
		f := strings.Fields(val)
		if len(f) == 2 && f[1] == "kB" {
			if kb, err := strconv.ParseUint(f[0], 10, 64); err == nil && kb < 1<<40 {
				p.KernelPageSizeBytes = kb * 1024
			}
		}
	case "VmFlags":
		p.HaveVmFlags = true
		p.HT = slices.Contains(strings.Fields(val), "ht")
	}
	return p
}
