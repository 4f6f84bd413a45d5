package postgres

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pagecost"
)

// measurePrivate measures the Pss_Anon of every process read without
// smaps_rollup, with one pagecost.Measure call for the whole instance (the
// fast path reads /proc/kpagecount once for all backends), when choice
// asks for the fast path (measure.Auto or measure.Fast).
func (in *Instance) measurePrivate(fs linux.FS, choice measure.Method) {
	if !choice.FastPath() {
		return
	}
	byPID := map[int]*Proc{}
	var pids []int
	for i := range in.Processes {
		if p := &in.Processes[i]; p.Rollup == nil {
			byPID[p.PID] = p
			pids = append(pids, p.PID)
		}
	}
	costs, skipped, err := pagecost.Measure(fs, pids, pagecost.OptionsFor(choice))
	if err != nil {
		in.gap("private cost", err.Error())
		return
	}
	fast := 0
	for _, c := range costs {
		p := byPID[c.PID]
		switch {
		case c.Method == pagecost.MethodFast:
			p.Private = &linux.PrivateMeasure{Method: c.Method.String(), PssAnonBytes: c.PssAnonBytes}
			fast++
		case c.Rollup != nil:
			p.Rollup = c.Rollup
		}
	}
	in.privateGaps(costs, skipped, fast)
}

// privateGaps reports why processes were not measured with the fast path,
// once per reason, and what the fast path does not read.
func (in *Instance) privateGaps(costs []pagecost.Cost, skipped []pagecost.Skipped, fast int) {
	for _, fb := range pagecost.Fallbacks(costs) {
		n := 0
		for _, c := range costs {
			if c.Fallback != nil && c.Fallback.Reason == fb.Reason {
				n++
			}
		}
		in.gap(fmt.Sprintf("private cost of %d processes", n), fb.Error())
	}
	fallbacks := map[string]int{}
	var order []string
	for _, s := range skipped {
		if errors.Is(s.Err, pagecost.ErrExited) || errors.Is(s.Err, pagecost.ErrNoUserMemory) {
			continue
		}
		msg := s.Err.Error()
		var fb *pagecost.FallbackError
		if errors.As(s.Err, &fb) {
			// Said once for all the processes it concerns, below.
			why := fb.Error()
			if fallbacks[why] == 0 {
				order = append(order, why)
			}
			fallbacks[why]++
			msg = strings.TrimSpace(strings.ReplaceAll(msg, why, ""))
		}
		if msg != "" {
			in.gap(fmt.Sprintf("private cost of process %d", s.PID), msg)
		}
	}
	for _, why := range order {
		in.gap(fmt.Sprintf("private cost of %d processes", fallbacks[why]), why)
	}
	if fast > 0 {
		in.gap(fmt.Sprintf("Pss and Pss_Shmem of %d processes", fast),
			"not read: the fast path measures Pss_Anon exactly without smaps_rollup (--method smaps reads them, walking every page table)")
	}
}
