package linux

import (
	"bytes"
	"fmt"
)

// kvFile holds the numeric "Key: value [kB]" lines of a kernel file
// (meminfo). Values given in kB are converted to bytes; unit-less values
// (page counts) are kept as they are. Lines that are not numeric are
// ignored, so a new or odd line never breaks a parse.
type kvFile map[string]uint64

// eachKV calls fn for every numeric "Key: value [unit]" line of b, in
// order, without allocating: status and smaps_rollup are read for every
// process of a fleet (measured: the map-and-scanner version allocated
// 82 KB per status file, this one nothing). key is only valid during fn.
func eachKV(b []byte, fn func(key []byte, v uint64)) {
	for line := range bytes.Lines(b) {
		if key, v, ok := parseKVLine(line); ok {
			fn(key, v)
		}
	}
}

// parseKVLine parses one "Key: value [unit]" line: the key has no blanks,
// the value is a decimal number followed by at most a unit (B, kB, MB, GB,
// any case). It works on strings and byte slices alike.
func parseKVLine[S ~string | ~[]byte](line S) (S, uint64, bool) {
	colon := indexByte(line, ':')
	if colon <= 0 || indexAny(line[:colon], " \t") >= 0 {
		return line[:0], 0, false
	}
	num, rest := nextField(line[colon+1:])
	unit, rest := nextField(rest)
	if extra, _ := nextField(rest); len(num) == 0 || len(extra) > 0 {
		return line[:0], 0, false
	}
	v, ok := parseDecimal(num)
	if !ok {
		return line[:0], 0, false
	}
	if len(unit) > 0 {
		mult, ok := unitBytes(unit)
		if !ok || v > (1<<64-1)/mult {
			return line[:0], 0, false
		}
		v *= mult
	}
	return line[:colon], v, true
}

// nextField returns the first blank-separated field of s and what follows.
func nextField[S ~string | ~[]byte](s S) (field, rest S) {
	i := 0
	for i < len(s) && isBlank(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isBlank(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

func isBlank(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// parseDecimal parses a non-empty run of decimal digits, rejecting overflow.
func parseDecimal[S ~string | ~[]byte](s S) (uint64, bool) {
	if len(s) == 0 {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		d := uint64(s[i]) - '0'
		if d > 9 || v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

func unitBytes[S ~string | ~[]byte](u S) (uint64, bool) {
	switch {
	case foldEq(u, "b"):
		return 1, true
	case foldEq(u, "kb"):
		return 1 << 10, true
	case foldEq(u, "mb"):
		return 1 << 20, true
	case foldEq(u, "gb"):
		return 1 << 30, true
	}
	return 0, false
}

// foldEq reports whether s equals the lower-case ASCII word w, ignoring case.
func foldEq[S ~string | ~[]byte](s S, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c|0x20 != w[i] {
			return false
		}
	}
	return true
}

func indexByte[S ~string | ~[]byte](s S, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func indexAny[S ~string | ~[]byte](s S, chars string) int {
	for i := 0; i < len(s); i++ {
		if indexByte(chars, s[i]) >= 0 {
			return i
		}
	}
	return -1
}

// ParseKV returns the numeric "Key: value [unit]" lines of b (meminfo,
// status) for the keys asked, in bytes where a unit is given; a key that
// is absent stays absent.
func ParseKV(b []byte, keys ...string) map[string]uint64 {
	out := map[string]uint64{}
	eachKV(b, func(key []byte, v uint64) {
		for _, k := range keys {
			if string(key) == k {
				out[k] = v
			}
		}
	})
	return out
}

// ReadKV reads the keys asked of a "Key: value [unit]" file under fs; a
// missing key is an error naming the file.
func ReadKV(fs FS, path string, keys ...string) (map[string]uint64, error) {
	b, err := fs.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := ParseKV(b, keys...)
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			return m, fmt.Errorf("%s has no %s line", fs.Display(path), k)
		}
	}
	return m, nil
}
