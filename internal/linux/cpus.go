package linux

import (
	"fmt"
	"strconv"
	"strings"
)

// ReadCPUsOnline counts the CPUs online (/sys/devices/system/cpu/online).
func ReadCPUsOnline(fs FS) (int, error) {
	b, err := fs.ReadFile(fs.SysPath("devices/system/cpu/online"))
	if err != nil {
		return 0, err
	}
	n, err := ParseCPUList(string(b))
	if err != nil {
		return 0, fmt.Errorf("read %s: %w", fs.SysPath("devices/system/cpu/online"), err)
	}
	return n, nil
}

// maxCPUs bounds a CPU list's numbers (the kernel's NR_CPUS is at most 8192).
const maxCPUs = 1 << 16

// ParseCPUList counts the CPUs of a kernel CPU list: "0-3,8,10-11" is 7.
func ParseCPUList(s string) (int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty CPU list")
	}
	n := 0
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a >= maxCPUs {
			return 0, fmt.Errorf("CPU list %q: bad number %q", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a || b >= maxCPUs {
				return 0, fmt.Errorf("CPU list %q: bad range %q", s, part)
			}
		}
		n += b - a + 1
	}
	return n, nil
}
