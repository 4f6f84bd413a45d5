package lab

import (
	"github.com/dbmem/dbmem/internal/units"

	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// childFaults are the page faults of a process's children that it has
// waited for: /proc/PID/stat cminflt and cmajflt. The postmaster waits for
// every backend, so the difference across a pgbench run is the faults of
// the backends that served it, counted to their last page.
type childFaults struct{ Min, Maj uint64 }

// readChildFaults reads /proc/PID/stat under fs.
func readChildFaults(fs linux.FS, pid int) (childFaults, error) {
	p := fs.ProcPath(strconv.Itoa(pid), "stat")
	b, err := fs.ReadFile(p)
	if err != nil {
		return childFaults{}, err
	}
	f, err := parseChildFaults(string(b))
	if err != nil {
		return f, fmt.Errorf("parse %s: %w", p, err)
	}
	return f, nil
}

// parseChildFaults reads fields 11 (cminflt) and 13 (cmajflt) of a stat
// line. The command name in parentheses may hold spaces and parentheses,
// so the fields are counted from the last ')'.
func parseChildFaults(s string) (childFaults, error) {
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return childFaults{}, fmt.Errorf("no (comm) in %q", units.Trunc(s, 60))
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state): field 11 is f[8], field 13 is f[10].
	if len(f) < 11 {
		return childFaults{}, fmt.Errorf("%d fields after comm, want at least 11", len(f))
	}
	var c childFaults
	var err error
	if c.Min, err = strconv.ParseUint(f[8], 10, 64); err != nil {
		return childFaults{}, fmt.Errorf("cminflt %q: %w", f[8], err)
	}
	if c.Maj, err = strconv.ParseUint(f[10], 10, 64); err != nil {
		return childFaults{}, fmt.Errorf("cmajflt %q: %w", f[10], err)
	}
	return c, nil
}
