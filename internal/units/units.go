package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Sizes in bytes.
const (
	KiB uint64 = 1 << 10
	MiB uint64 = 1 << 20
	GiB uint64 = 1 << 30
	TiB uint64 = 1 << 40
)

// Bytes renders a size in IEC units with three significant digits:
// "0 B", "512 B", "1.50 KiB", "2 MiB", "23.5 GiB".
func Bytes(b uint64) string {
	if b < KiB {
		return fmt.Sprintf("%d B", b)
	}
	v, exp := float64(b), 0
	for v >= 1024 && exp < 6 {
		v /= 1024
		exp++
	}
	return trimNum(v) + " " + string("KMGTPE"[exp-1]) + "iB"
}

// Short renders a size for table cells: "0", "512B", "1.50K", "23.5G".
func Short(b uint64) string {
	if b == 0 {
		return "0"
	}
	return strings.TrimSuffix(strings.Replace(Bytes(b), " ", "", 1), "iB")
}

func trimNum(v float64) string {
	switch {
	case v == math.Trunc(v) || v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// Percent renders part/whole as "12%", with one decimal below 10% ("0.4%");
// "-" when whole is 0.
func Percent(part, whole uint64) string {
	if whole == 0 {
		return "-"
	}
	p := float64(part) * 100 / float64(whole)
	if p < 10 && p != math.Trunc(p) {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// sizeUnits are the units ParseSize accepts, case-insensitive; all are powers
// of 1024 (PostgreSQL's "GB" is 2^30 bytes too).
var sizeUnits = map[string]float64{"": 1, "b": 1,
	"k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}

// ParseSize reads a size as people and PostgreSQL write it: "64GiB", "64GB",
// "64G", "512MB", "1.5TiB", "262144kB", or a plain number of bytes.
func ParseSize(s string) (uint64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.ToLower(strings.TrimSpace(t[i:]))
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("size %q: want a number with an optional unit (64GiB, 512MB, 2G)", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return 0, fmt.Errorf("size %q: unknown unit %q (use KiB, MiB, GiB or TiB)", s, unit)
	}
	if v*mult >= 1<<63 {
		return 0, fmt.Errorf("size %q is too large", s)
	}
	return uint64(v * mult), nil
}

// Unknown is how text shows a number that was not read; UnknownCell is the
// same in a table cell. A number that was not read is never shown as 0.
const (
	Unknown     = "unknown"
	UnknownCell = "?"
)

// OptBytes is Bytes for a size that may not have been read (nil).
func OptBytes(b *uint64) string { return BytesOr(b, Unknown) }

// BytesOr is Bytes for a size that may not have been read, with the word
// (or "-" in a table) shown when it was not.
func BytesOr(b *uint64, unread string) string {
	if b == nil {
		return unread
	}
	return Bytes(*b)
}

// OptShort is Short for a size that may not have been read (nil).
func OptShort(b *uint64) string {
	if b == nil {
		return UnknownCell
	}
	return Short(*b)
}

// OptPercent is Percent of sizes that may not have been read: "?" when
// either is nil.
func OptPercent(part, whole *uint64) string {
	if part == nil || whole == nil {
		return UnknownCell
	}
	return Percent(*part, *whole)
}

// Quantity renders bytes as a Kubernetes quantity in whole Mi or Gi: Gi
// when it is a whole number of them, else Mi rounded up.
func Quantity(b uint64) string {
	if b%GiB == 0 && b > 0 {
		return strconv.FormatUint(b/GiB, 10) + "Gi"
	}
	return strconv.FormatUint((b+MiB-1)/MiB, 10) + "Mi"
}
