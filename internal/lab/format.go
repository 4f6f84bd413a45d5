package lab

import "fmt"

// FormatBytes renders a size in IEC units with three significant digits:
// "0 B", "512 B", "1.50 KiB", "23.5 GiB" (as dbmem report does; kept here
// so the lab does not depend on the report's packages).
func FormatBytes(b uint64) string {
	if b < 1024 {
		return fmt.Sprintf("%d B", b)
	}
	v, exp := float64(b), 0
	for v >= 1024 && exp < 5 {
		v /= 1024
		exp++
	}
	unit := string("KMGTPE"[exp-1]) + "iB"
	switch {
	case v == float64(int64(v)) || v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}
