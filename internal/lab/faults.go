package lab

import "github.com/dbmem/dbmem/internal/linux"

// childFaults are the page faults of a process's children that it has
// waited for: /proc/PID/stat cminflt and cmajflt. The postmaster waits for
// every backend, so the difference across a pgbench run is the faults of
// the backends that served it, counted to their last page.
type childFaults struct{ Min, Maj uint64 }

// readChildFaults reads /proc/PID/stat under fs.
func readChildFaults(fs linux.FS, pid int) (childFaults, error) {
	st, err := linux.ReadStat(fs, pid)
	if err != nil {
		return childFaults{}, err
	}
	return childFaults{Min: st.CMinFlt, Maj: st.CMajFlt}, nil
}
