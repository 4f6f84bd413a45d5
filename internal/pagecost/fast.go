package pagecost

import (
	"errors"
	"strconv"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// measureFast runs the fast path in three phases: read every process's
// status, maps and private pagemap ranges (parallel); look up the union of
// PFNs that need a mapcount in kpagecount/kpageflags once, in sorted runs;
// then add up each process's pages (pure).
func measureFast(fs linux.FS, pids []int, opt Options) ([]Cost, []Skipped, error) {
	countPath, flagsPath := opt.KPageCountPath, opt.KPageFlagsPath
	if countPath == "" {
		countPath = fs.ProcPath("kpagecount")
	}
	if flagsPath == "" {
		flagsPath = fs.ProcPath("kpageflags")
	}
	kp, fb := openKpage(countPath, flagsPath)
	if fb != nil {
		fb.To = opt.fallback()
		return measureEach(fs, pids, opt, fallbackTo(fb))
	}
	defer kp.close()
	scans := make([]*procScan, len(pids))
	res := make([]result, len(pids))
	forEach(len(pids), opt.parallel(), func(sc *scratch, i int) {
		scans[i], res[i] = scanOrFallback(fs, pids[i], sc, opt)
	})
	pt, err := kp.readTable(unionLookups(scans), opt.parallel())
	if err != nil {
		// kpagecount failed mid-way (should not happen once opened):
		// measure the scanned processes with smaps_rollup instead.
		fb := &FallbackError{Reason: ReasonNotRoot, Path: countPath, Err: err, To: opt.fallback()}
		return measureEach(fs, pids, opt, fallbackTo(fb))
	}
	for i, ps := range scans {
		if ps != nil {
			res[i] = result{cost: fastCost(pids[i], ps, pt)}
		}
	}
	costs, skipped := collect(pids, res)
	return costs, skipped, nil
}

// scanOrFallback runs phase one for a process, or measures it with
// smaps_rollup at once when its pagemap cannot be used.
func scanOrFallback(fs linux.FS, pid int, sc *scratch, opt Options) (*procScan, result) {
	ps, err := scanProcess(fs, pid, sc, opt.AlwaysPagemap)
	to := opt.fallback()
	path := fs.ProcPath(strconv.Itoa(pid), "pagemap")
	switch {
	case err == nil && ps.useSmaps:
		c, err := smapsAfterStatus(fs, pid, ps.status, time.Now().Add(-ps.elapsed))
		return nil, result{cost: c, err: err}
	case err == nil && ps.tally.pfnHidden:
		return nil, fallbackResult(fs, pid, &FallbackError{Reason: ReasonPFNHidden, Path: path, To: to})
	case err == nil:
		return ps, result{}
	case linux.IsDenied(err):
		return nil, fallbackResult(fs, pid, &FallbackError{Reason: ReasonPagemapDenied, Path: path, Err: err, To: to})
	}
	return nil, result{err: err}
}

func fallbackResult(fs linux.FS, pid int, fb *FallbackError) result {
	c, err := fallbackTo(fb)(fs, pid)
	return result{cost: c, err: err}
}

// fallbackTo returns a per-process measure that uses fb.To (smaps_rollup
// or status) and records why.
func fallbackTo(fb *FallbackError) func(linux.FS, int) (Cost, error) {
	measure := smapsCost
	if fb.To == MethodStatus {
		measure = statusCost
	}
	return func(fs linux.FS, pid int) (Cost, error) {
		c, err := measure(fs, pid)
		if err != nil {
			return c, errors.Join(err, fb)
		}
		c.Fallback = fb
		return c, nil
	}
}

// unionLookups returns the lookup runs of all scans.
func unionLookups(scans []*procScan) []pfnRun {
	var all []pfnRun
	for _, ps := range scans {
		if ps != nil {
			all = append(all, ps.tally.lookup...)
		}
	}
	return all
}

// fastCost is phase three for one process (pure).
func fastCost(pid int, ps *procScan, pt *pageTable) Cost {
	c := costFromStatus(pid, MethodFast, ps.status)
	c.PssAnonBytes = pssAnon(&ps.tally, pt, pageSize)
	c.Scan = ScanStats{
		PagemapEntries: ps.tally.entries, SkippedSharedBytes: ps.skipped,
		ExclusivePages: ps.tally.exclusive, LookedUpPages: ps.tally.lookedUp(),
	}
	c.Elapsed = ps.elapsed
	return c
}
