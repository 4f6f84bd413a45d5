package units

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// PostgreSQL spells memory settings its own way: "128MB", "64kB", a bare
// number in the setting's base unit ("8kB" pages for shared_buffers).

// memoryUnits are PostgreSQL's memory units (case-sensitive, as in guc.c).
var memoryUnits = map[string]uint64{
	"B": 1, "kB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40,
}

// PGUnit converts a pg_settings unit ("8kB", "kB", "MB", "B") into bytes.
func PGUnit(unit string) (uint64, bool) {
	if m, ok := memoryUnits[unit]; ok {
		return m, true
	}
	if n, ok := strings.CutSuffix(unit, "kB"); ok {
		v, err := strconv.ParseUint(n, 10, 64)
		return v << 10, err == nil && v > 0
	}
	return 0, false
}

// ParsePG converts a memory setting as written in postgresql.conf or by
// SHOW ("128MB", "4096", "1.5GB") into bytes. A bare number is in the
// setting's base unit (baseUnit, e.g. "8kB" for shared_buffers, "kB" for
// work_mem). Negative values (-1: "use another setting") give ok=false.
func ParsePG(value, baseUnit string) (uint64, error) {
	v := strings.TrimSpace(value)
	num, unit := splitNumber(v)
	if num == "" {
		return 0, fmt.Errorf("memory value %q has no number", value)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, fmt.Errorf("memory value %q: %w", value, err)
	}
	if f < 0 {
		return 0, fmt.Errorf("memory value %q is negative (means: use another setting)", value)
	}
	unit = cmp.Or(unit, baseUnit)
	mult, ok := PGUnit(unit)
	if !ok {
		return 0, fmt.Errorf("memory value %q: unknown unit %q (valid: B, kB, MB, GB, TB)", value, unit)
	}
	b := f * float64(mult)
	if b > math.MaxUint64/2 {
		return 0, fmt.Errorf("memory value %q is too large", value)
	}
	return uint64(math.Round(b)), nil
}

// splitNumber splits "128MB" into "128" and "MB".
func splitNumber(s string) (string, string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '-' || s[i] == '+') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// PG writes bytes as a PostgreSQL memory value in the largest exact
// unit ("16GB", "1536MB", "64kB"; rounded up to whole kB).
func PG(b uint64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return strconv.FormatUint(b>>30, 10) + "GB"
	case b >= 1<<20 && b%(1<<20) == 0:
		return strconv.FormatUint(b>>20, 10) + "MB"
	}
	return strconv.FormatUint((b+1023)>>10, 10) + "kB"
}
