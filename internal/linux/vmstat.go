package linux

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// VMStat holds the /proc/vmstat counters the view turns into rates. All
// count since boot; Has says which lines the kernel printed.
type VMStat struct {
	PswpIn     uint64 `json:"pswpin"`       // pages swapped in
	PswpOut    uint64 `json:"pswpout"`      // pages swapped out
	PgMajFault uint64 `json:"pgmajfault"`   // major page faults (I/O)
	OOMKill    uint64 `json:"oom_kill"`     // OOM kills (kernel 4.13+)
	Has        bool   `json:"has_pswp"`     // pswpin/pswpout were present
	HasOOMKill bool   `json:"has_oom_kill"` // oom_kill was present
}

// ReadVMStat reads /proc/vmstat under fs.
func ReadVMStat(fs FS) (VMStat, error) {
	path := fs.ProcPath("vmstat")
	b, err := fs.ReadFile(path)
	if err != nil {
		return VMStat{}, err
	}
	v, err := parseVMStat(bytes.NewReader(b))
	if err != nil {
		return v, fmt.Errorf("parse %s: %w", path, err)
	}
	return v, nil
}

// parseVMStat reads "name value" lines. Unknown or malformed lines are
// skipped; only a read error fails.
func parseVMStat(r io.Reader) (VMStat, error) {
	var v VMStat
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		name, val, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSpace(val), 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "pswpin":
			v.PswpIn, v.Has = n, true
		case "pswpout":
			v.PswpOut, v.Has = n, true
		case "pgmajfault":
			v.PgMajFault = n
		case "oom_kill":
			v.OOMKill, v.HasOOMKill = n, true
		}
	}
	return v, sc.Err()
}
