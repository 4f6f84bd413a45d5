package pagecost

import (
	"errors"
	"strconv"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// measureFast runs the fast path in three phases: read every process's
// status, maps and private pagemap ranges except text (parallel); look up
// the union of PFNs that need a mapcount in kpagecount/kpageflags once, in
// sorted runs; then add up each process's pages (pure). A process whose
// anonymous pages fall short of its RssAnon has anonymous pages in its text
// (a debugger's breakpoints, text relocations) or changed while it was
// read: it is read again with its text, in a second, smaller round.
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
	// kpagecount failing mid-way (should not happen once opened) sends the
	// processes of that round to the fallback.
	failed := func(err error) *FallbackError {
		return &FallbackError{Reason: ReasonNotRoot, Path: countPath, Err: err, To: opt.fallback()}
	}
	r := fastRound{fs: fs, kp: kp, opt: opt, pids: pids, res: make([]result, len(pids))}
	if err := r.run(allIndexes(len(pids)), false); err != nil {
		return measureEach(fs, pids, opt, fallbackTo(failed(err)))
	}
	if again := r.shortOfRssAnon(); len(again) > 0 {
		if err := r.run(again, true); err != nil {
			for _, i := range again {
				r.res[i] = fallbackResult(fs, pids[i], failed(err))
			}
		}
	}
	costs, skipped := collect(pids, r.res)
	return costs, skipped, nil
}

// fastRound holds the fast path's state across its rounds.
type fastRound struct {
	fs   linux.FS
	kp   *kpageFiles
	opt  Options
	pids []int
	res  []result
	// anonPages is, per process, the anonymous pages the last round found.
	anonPages []uint64
	scans     []*procScan
}

// run measures the processes at the given indexes of pids: phases one to
// three, text mappings only withCode.
func (r *fastRound) run(idx []int, withCode bool) error {
	if r.scans == nil {
		r.scans = make([]*procScan, len(r.pids))
		r.anonPages = make([]uint64, len(r.pids))
	}
	par := r.opt.parallel(len(idx))
	plan := scanPlan{alwaysPagemap: r.opt.AlwaysPagemap, withCode: withCode}
	if !withCode {
		plan.layouts = &layouts{}
	}
	forEach(len(idx), par, func(sc *scratch, j int) {
		i := idx[j]
		r.scans[i], r.res[i] = scanOrFallback(r.fs, r.pids[i], sc, r.opt, plan)
	})
	round := make([]*procScan, 0, len(idx))
	for _, i := range idx {
		round = append(round, r.scans[i])
	}
	pt, err := r.kp.readTable(unionLookups(round), par)
	if err != nil {
		return err
	}
	for _, i := range idx {
		if ps := r.scans[i]; ps != nil {
			var c Cost
			c, r.anonPages[i] = fastCost(r.pids[i], ps, pt)
			c.Scan.TextRead = withCode
			c.Scan.SiblingLayout = ps.fromLayout
			r.res[i] = result{cost: c}
		}
	}
	return nil
}

// shortOfRssAnon returns the indexes of the processes to read again, from
// their own maps and with their text: those read without their text whose
// anonymous pages found are fewer than status's RssAnon, and those read
// along a sibling's layout whose count is not exactly RssAnon.
func (r *fastRound) shortOfRssAnon() []int {
	var idx []int
	for i, ps := range r.scans {
		if ps == nil {
			continue
		}
		found, want := r.anonPages[i]*pageSize, ps.status.RssAnonBytes
		if want == nil && (ps.fromLayout || ps.codeDeferred) {
			idx = append(idx, i) // no RssAnon to check against: read it all
			continue
		}
		if ps.fromLayout && found != *want || ps.codeDeferred && found < *want {
			idx = append(idx, i)
		}
	}
	return idx
}

func allIndexes(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// scanOrFallback runs phase one for a process, or measures it with
// smaps_rollup at once when its pagemap cannot be used.
func scanOrFallback(fs linux.FS, pid int, sc *scratch, opt Options, plan scanPlan) (*procScan, result) {
	ps, err := scanProcess(fs, pid, sc, plan)
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

// unionLookups returns the lookup runs of all scans, in a new slice.
func unionLookups(scans []*procScan) []pfnRun {
	n := 0
	for _, ps := range scans {
		if ps != nil {
			n += len(ps.tally.lookup)
		}
	}
	all := make([]pfnRun, 0, n)
	for _, ps := range scans {
		if ps != nil {
			all = append(all, ps.tally.lookup...)
		}
	}
	return all
}

// fastCost is phase three for one process (pure); it also returns the
// anonymous pages found.
func fastCost(pid int, ps *procScan, pt *pageTable) (Cost, uint64) {
	c := costFromStatus(pid, MethodFast, ps.status)
	var anon uint64
	c.PssAnonBytes, anon = pssAnon(&ps.tally, pt, pageSize)
	c.Scan = ScanStats{
		PagemapEntries: ps.tally.entries, SkippedSharedBytes: ps.skipped,
		ExclusivePages: ps.tally.exclusive, LookedUpPages: ps.tally.lookedUp(),
	}
	c.Elapsed = ps.elapsed
	return c, anon
}
