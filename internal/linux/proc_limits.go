package linux

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Unlimited is the value of a limit the kernel prints as "unlimited".
const Unlimited = math.MaxUint64

// Limit names in /proc/PID/limits.
const (
	LimitMemlock = "Max locked memory"
	LimitStack   = "Max stack size"
	LimitAS      = "Max address space"
	LimitNoFile  = "Max open files"
)

// Limit is one resource limit of a process, as in /proc/PID/limits.
// Soft is what the kernel enforces; Hard is how far the process may raise it.
type Limit struct {
	Name string // "Max locked memory"
	Soft uint64 // Unlimited for "unlimited"
	Hard uint64
	Unit string // "bytes", "seconds", ... ; "" where the kernel prints none
}

// Limits are the resource limits of one process, in the kernel's order.
type Limits []Limit

// Find returns the limit with the given name ("Max locked memory").
func (l Limits) Find(name string) (Limit, bool) {
	for _, x := range l {
		if x.Name == name {
			return x, true
		}
	}
	return Limit{}, false
}

// Memlock returns RLIMIT_MEMLOCK in bytes.
func (l Limits) Memlock() (Limit, bool) { return l.Find(LimitMemlock) }

// ReadLimits reads /proc/PID/limits. It needs no privilege for one's own
// processes; other users' processes may be readable only by root (EACCES).
func ReadLimits(fs FS, pid int) (Limits, error) {
	return readParsed(fs, fs.ProcPath(strconv.Itoa(pid), "limits"), ParseLimits)
}

// ParseLimits parses the text of /proc/PID/limits. Names contain spaces and
// the units column can be empty ("Max nice priority 0 0"), so each row is
// read from the right: [unit], hard, soft, then the name.
func ParseLimits(r io.Reader) (Limits, error) {
	var out Limits
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "Limit ") {
			continue
		}
		l, err := parseLimitLine(line)
		if err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, l)
	}
	return out, sc.Err()
}

func parseLimitLine(line string) (Limit, error) {
	f := strings.Fields(line)
	var l Limit
	if len(f) >= 4 && !isLimitValue(f[len(f)-1]) {
		l.Unit, f = f[len(f)-1], f[:len(f)-1]
	}
	if len(f) < 3 {
		return l, fmt.Errorf("want name, soft and hard limit in %q", line)
	}
	var err error
	if l.Soft, err = parseLimitValue(f[len(f)-2]); err != nil {
		return l, fmt.Errorf("soft limit in %q: %w", line, err)
	}
	if l.Hard, err = parseLimitValue(f[len(f)-1]); err != nil {
		return l, fmt.Errorf("hard limit in %q: %w", line, err)
	}
	l.Name = strings.Join(f[:len(f)-2], " ")
	return l, nil
}

func isLimitValue(s string) bool {
	_, err := parseLimitValue(s)
	return err == nil
}

func parseLimitValue(s string) (uint64, error) {
	if s == "unlimited" {
		return Unlimited, nil
	}
	return strconv.ParseUint(s, 10, 64)
}
