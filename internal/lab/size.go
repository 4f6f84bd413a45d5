package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseSize reads a size as PostgreSQL and people write it: "4GB", "512MB",
// "1.5GiB", "262144kB", or plain bytes. Units are binary (PostgreSQL's
// "GB" is 2^30 bytes).
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (kB, MB, GB, TB)", s)
	}
	mult, ok := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
		"m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20, "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
		"t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (use kB, MB, GB or TB)", s, unit)
	}
	b := v * mult
	if b >= 1<<63 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return uint64(b), nil
}
