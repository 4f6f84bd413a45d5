package linux

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
)

// SmapsEntry is one mapping of /proc/PID/smaps with its counters in bytes.
type SmapsEntry struct {
	Mapping
	KernelPageSizeBytes uint64
	RssBytes            uint64
	PssBytes            uint64
	SharedHugetlbBytes  uint64
	PrivateHugetlbBytes uint64
	AnonymousBytes      uint64
	SwapBytes           uint64
	VmFlags             []string
}

// Hugetlb reports whether the mapping is backed by hugetlbfs pages: the
// "ht" VmFlag when the kernel prints VmFlags (3.8+), else a kernel page
// size above 4 KiB. The flag decides where it is printed: on arm64 with 16
// or 64 KiB base pages every mapping has a KernelPageSize above 4 KiB, and
// a 64 KiB page is not a huge page.
func (e SmapsEntry) Hugetlb() bool {
	if len(e.VmFlags) > 0 {
		for _, f := range e.VmFlags {
			if f == "ht" {
				return true
			}
		}
		return false
	}
	return e.KernelPageSizeBytes > 4096
}

// ReadSmaps reads /proc/PID/smaps under fs, keeping only the entries keep
// accepts (nil keeps all). Reading smaps walks the whole address space; use
// it for one process (a postmaster), not for every backend.
func ReadSmaps(fs FS, pid int, keep func(Mapping) bool) ([]SmapsEntry, error) {
	b, err := readProcFile(fs, pid, "smaps")
	if err != nil {
		return nil, err
	}
	return parseSmaps(bytes.NewReader(b), keep)
}

func parseSmaps(r io.Reader, keep func(Mapping) bool) ([]SmapsEntry, error) {
	var out []SmapsEntry
	var cur *SmapsEntry
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if isMapsHeader(line) {
			cur = nil
			m, err := parseMapsLine(line)
			if err == nil && (keep == nil || keep(m)) {
				out = append(out, SmapsEntry{Mapping: m})
				cur = &out[len(out)-1]
			}
			continue
		}
		if cur != nil {
			cur.setField(line)
		}
	}
	return out, sc.Err()
}

func (e *SmapsEntry) setField(line string) {
	if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
		e.VmFlags = strings.Fields(rest)
		return
	}
	key, v, ok := parseKVLine(line)
	if !ok {
		return
	}
	switch key {
	case "KernelPageSize":
		e.KernelPageSizeBytes = v
	case "Rss":
		e.RssBytes = v
	case "Pss":
		e.PssBytes = v
	case "Shared_Hugetlb":
		e.SharedHugetlbBytes = v
	case "Private_Hugetlb":
		e.PrivateHugetlbBytes = v
	case "Anonymous":
		e.AnonymousBytes = v
	case "Swap":
		e.SwapBytes = v
	}
}

// readProcFile reads /proc/PID/name. A process that has exited yields an
// error that IsGone recognises.
func readProcFile(fs FS, pid int, name string) ([]byte, error) {
	return fs.ReadFile(fs.ProcPath(strconv.Itoa(pid), name))
}
