package pagecost

import (
	"bytes"
	"fmt"
)

// vma is one line of /proc/PID/maps reduced to what the fast path needs.
type vma struct {
	start, end uint64
	act        vmaAction
	// code: program or library text (see isCode), read only when the
	// anonymous pages found elsewhere fall short of RssAnon.
	code bool
}

// mayHoldAnon reports whether the mapping can hold anonymous pages at all
// (read, or read with every page looked up), as opposed to the shared,
// hugetlb and special mappings the fast path never reads.
func (m vma) mayHoldAnon() bool { return m.act == vmaRead || m.act == vmaReadCheck }

// parseMapsActions parses the text of /proc/PID/maps into address ranges
// and what to do with each, appending to out. It gives what
// linux.ParseMaps followed by vmaOf gives (FuzzParseMapsActions
// checks it) without allocating per line: a backend's maps has about 250
// lines, and linux.ParseMaps took as long to parse them as the kernel took
// to print them.
func parseMapsActions(b []byte, out []vma) ([]vma, error) {
	for n := 1; len(b) > 0; n++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := parseMapsLineAction(line)
		if err != nil {
			return out, fmt.Errorf("maps line %d: %w", n, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseMapsLineAction parses "start-end perms offset dev inode [path]".
func parseMapsLineAction(line []byte) (vma, error) {
	var f [5][]byte
	rest := line
	for i := range f {
		f[i], rest = nextField(rest)
		if len(f[i]) == 0 {
			return vma{}, fmt.Errorf("want at least 5 fields, got %q", line)
		}
	}
	lo, hi, _ := bytes.Cut(f[0], []byte("-"))
	start, ok1 := parseUint(lo, 16)
	end, ok2 := parseUint(hi, 16)
	_, ok3 := parseUint(f[2], 16)
	inode, ok4 := parseUint(f[4], 10)
	if !ok1 || !ok2 || !ok3 || !ok4 || end < start {
		return vma{}, fmt.Errorf("bad address range, offset or inode in %q", line)
	}
	shared := len(f[1]) == 4 && f[1][3] == 's'
	path := bytes.TrimSpace(rest)
	return vma{start: start, end: end, act: classify(shared, f[3], inode, path, end), code: isCode(f[1], inode)}, nil
}

// nextField splits off the first field of b separated by spaces or tabs:
// bytes.TrimLeft and bytes.IndexAny, in one loop without their set lookups.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}

// parseUint parses a non-empty unsigned number in base 10 or 16, rejecting
// overflow, like strconv.ParseUint without its allocations.
func parseUint(b []byte, base uint64) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		var d uint64
		switch {
		case '0' <= c && c <= '9':
			d = uint64(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if v > (1<<64-1-d)/base {
			return 0, false
		}
		v = v*base + d
	}
	return v, true
}
