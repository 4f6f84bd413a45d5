package linux

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End uint64 // virtual addresses, End exclusive
	Perms      string // "rw-s": read, write, exec, s(hared) or p(rivate)
	Offset     uint64
	Dev        string // "00:01"
	Inode      uint64
	Path       string // "" for anonymous, "[heap]", "/dev/zero (deleted)", ...
	// PageSizeBytes is the kernel's page size for the mapping (the huge
	// page size of a hugetlb mapping), where the kernel said it
	// (ReadSharedMappings' query); 0 from the maps text, which does not.
	PageSizeBytes uint64
}

// SizeBytes is the length of the mapping's address range.
func (m Mapping) SizeBytes() uint64 { return m.End - m.Start }

// Shared reports whether the mapping is MAP_SHARED ('s' in perms).
func (m Mapping) Shared() bool { return len(m.Perms) == 4 && m.Perms[3] == 's' }

// ReadMaps reads /proc/PID/maps under fs.
func ReadMaps(fs FS, pid int) ([]Mapping, error) {
	b, err := fs.ReadFile(fs.ProcPath(strconv.Itoa(pid), "maps"))
	if err != nil {
		return nil, err
	}
	return ParseMaps(bytes.NewReader(b))
}

// ParseMaps parses the text of /proc/PID/maps.
func ParseMaps(r io.Reader) ([]Mapping, error) {
	var out []Mapping
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		m, err := parseMapsLine(sc.Text())
		if err != nil {
			return out, fmt.Errorf("maps line %d: %w", n, err)
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// isMapsHeader reports whether line starts a mapping (as in smaps, where
// mapping headers alternate with "Key: value" lines).
func isMapsHeader(line string) bool {
	rng, _, ok := strings.Cut(line, " ")
	if !ok {
		return false
	}
	lo, hi, ok := strings.Cut(rng, "-")
	return ok && isHex(lo) && isHex(hi)
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func parseMapsLine(line string) (Mapping, error) {
	var m Mapping
	f := strings.Fields(line)
	if len(f) < 5 {
		return m, fmt.Errorf("want at least 5 fields, got %q", line)
	}
	lo, hi, ok := strings.Cut(f[0], "-")
	if !ok {
		return m, fmt.Errorf("address range %q has no '-'", f[0])
	}
	var err error
	if m.Start, err = strconv.ParseUint(lo, 16, 64); err != nil {
		return m, fmt.Errorf("start address %q: %w", lo, err)
	}
	if m.End, err = strconv.ParseUint(hi, 16, 64); err != nil {
		return m, fmt.Errorf("end address %q: %w", hi, err)
	}
	if m.End < m.Start {
		return m, fmt.Errorf("address range %q ends before it starts", f[0])
	}
	if m.Offset, err = strconv.ParseUint(f[2], 16, 64); err != nil {
		return m, fmt.Errorf("offset %q: %w", f[2], err)
	}
	if m.Inode, err = strconv.ParseUint(f[4], 10, 64); err != nil {
		return m, fmt.Errorf("inode %q: %w", f[4], err)
	}
	m.Perms, m.Dev = f[1], f[3]
	m.Path = pathField(line)
	return m, nil
}

// pathField returns everything after the fifth field, keeping inner spaces
// ("/dev/zero (deleted)").
func pathField(line string) string {
	rest := line
	for i := 0; i < 5; i++ {
		rest = strings.TrimLeft(rest, " \t")
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			return ""
		}
		rest = rest[j:]
	}
	return strings.TrimSpace(rest)
}
