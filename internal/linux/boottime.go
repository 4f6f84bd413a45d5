package linux

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// UserHZ is the unit of the times in /proc/PID/stat (USER_HZ): 100 per
// second on every Linux architecture dbmem runs on.
const UserHZ = 100

// BootTime reads the host's boot time (the btime line of /proc/stat).
func BootTime(fs FS) (time.Time, error) {
	p := fs.ProcPath("stat")
	b, err := fs.ReadFile(p)
	if err != nil {
		return time.Time{}, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n <= 0 {
				return time.Time{}, fmt.Errorf("read %s: btime %q is not a time", fs.Display(p), v)
			}
			return time.Unix(n, 0).UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("read %s: no btime line", fs.Display(p))
}

// Started is when a process started: the boot time plus its start time in
// clock ticks (Process.StartTicks).
func Started(boot time.Time, startTicks uint64) time.Time {
	return boot.Add(time.Duration(startTicks) * (time.Second / UserHZ))
}
