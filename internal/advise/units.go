package advise

import (
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// Sizes used throughout.
const (
	KiB = units.KiB
	MiB = units.MiB
	GiB = units.GiB
)

// basePage is the base page size on the architectures dbmem supports
// (x86-64, arm64 with 4 KiB pages).
const basePage = 4 * KiB

// pteBytes is one page table entry: each mapped page costs one in every
// process that touched it.
const pteBytes = 8

// share is part/whole as a fraction (0 when whole is 0).
func share(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// PageSizeName is how PostgreSQL, the kernel command line and Kubernetes
// spell a huge page size: "2MB"/"2M"/"2Mi" for 2 MiB.
func PageSizeName(b uint64, style string) string {
	n, unit := b/KiB, "k"
	switch {
	case b >= GiB && b%GiB == 0:
		n, unit = b/GiB, "G"
	case b >= MiB && b%MiB == 0:
		n, unit = b/MiB, "M"
	}
	switch style {
	case "postgres": // 2MB, 1GB
		return strconv.FormatUint(n, 10) + strings.ToUpper(unit) + "B"
	case "k8s": // 2Mi, 1Gi
		return strconv.FormatUint(n, 10) + strings.ToUpper(unit) + "i"
	}
	return strconv.FormatUint(n, 10) + strings.ToUpper(unit) // kernel: 2M, 1G
}

// Quantity renders bytes as a Kubernetes quantity in whole Mi or Gi
// (units.Quantity).
func Quantity(b uint64) string { return units.Quantity(b) }
