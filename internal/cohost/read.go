package cohost

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/linux"
)

// Read lists the processes under fs and returns the software they run,
// with MongoDB's version where its log says it. A process that exits
// meanwhile is skipped; one that cannot be read is a gap.
func Read(fs linux.FS) ([]Software, []linux.Gap) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, []linux.Gap{{What: "co-hosted software (the process list)", Why: err.Error()}}
	}
	var procs []Proc
	var gaps []linux.Gap
	for _, pid := range pids {
		st, err := linux.ReadStat(fs, pid)
		if err != nil {
			if !linux.IsGone(err) {
				gaps = append(gaps, linux.Gap{What: fmt.Sprintf("/proc/%d/stat", pid), Why: err.Error(), Kind: linux.KindOf(err)})
			}
			continue
		}
		args, _ := linux.ReadCmdline(fs, pid) // kernel threads and zombies have none
		procs = append(procs, Proc{PID: pid, Comm: st.Comm, Args: args})
	}
	sw := Detect(procs)
	for i := range sw {
		if sw[i].Kind == MongoDB {
			gaps = append(gaps, mongoVersion(fs, &sw[i], procs)...)
		}
	}
	return sw, gaps
}
