package pagecost

import (
	"fmt"
	"os"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// Options tune Measure.
type Options struct {
	// Method chooses how Pss_Anon is obtained (default MethodFast).
	Method Method
	// Fallback is what MethodFast uses for a process where the fast path
	// is not possible (not root, PFNs hidden, pagemap denied): MethodSmaps
	// (also for the zero value; exact, as slow as the page tables are
	// large) or MethodStatus (cheap; RssAnon over-estimates).
	Fallback Method
	// AlwaysPagemap makes MethodFast read pagemap even for processes that
	// map so little shared memory that smaps_rollup is cheaper (RssShmem
	// under 32 MiB, e.g. every backend with huge_pages=on); for tests and
	// benchmarks of the pagemap path.
	AlwaysPagemap bool
	// Parallel is the number of goroutines reading processes; 0 means one
	// for fewer than 64 processes, else up to 4 (at most GOMAXPROCS).
	Parallel int
	// KPageCountPath and KPageFlagsPath override fs.ProcPath("kpagecount")
	// and fs.ProcPath("kpageflags").
	KPageCountPath, KPageFlagsPath string
}

func (o Options) fallback() Method {
	if o.Fallback == MethodStatus {
		return MethodStatus
	}
	return MethodSmaps
}

// parallel is the number of goroutines for n processes.
func (o Options) parallel(n int) int {
	if o.Parallel > 0 {
		return o.Parallel
	}
	return autoParallel(n)
}

// Measure returns the private cost of each process in pids, in the order
// given. Processes that exited or could not be read are in Skipped instead.
// With MethodFast, a process whose pages cannot be looked up (not root, no
// kpagecount, PFNs hidden, pagemap denied) is measured with smaps_rollup and
// its Cost.Fallback says why. The error is for invalid options only.
func Measure(fs linux.FS, pids []int, opt Options) ([]Cost, []Skipped, error) {
	switch opt.Method {
	case MethodStatus:
		return measureEach(fs, pids, opt, statusCost)
	case MethodSmaps:
		return measureEach(fs, pids, opt, smapsCost)
	case MethodFast:
		return measureFast(fs, pids, opt)
	}
	return nil, nil, fmt.Errorf("measure private cost: unknown method %v", opt.Method)
}

// result is one process's outcome, kept by index so order is preserved.
type result struct {
	cost Cost
	err  error
}

// collect splits results into costs and skipped processes.
func collect(pids []int, res []result) ([]Cost, []Skipped) {
	costs := make([]Cost, 0, len(res))
	var skipped []Skipped
	for i, r := range res {
		if r.err != nil {
			skipped = append(skipped, Skipped{PID: pids[i], Err: skipErr(r.err)})
			continue
		}
		costs = append(costs, r.cost)
	}
	return costs, skipped
}

// measureEach measures every process independently with fn.
func measureEach(fs linux.FS, pids []int, opt Options, fn func(linux.FS, int) (Cost, error)) ([]Cost, []Skipped, error) {
	res := make([]result, len(pids))
	forEach(len(pids), opt.parallel(len(pids)), func(_ *struct{}, i int) {
		res[i].cost, res[i].err = fn(fs, pids[i])
	})
	costs, skipped := collect(pids, res)
	return costs, skipped, nil
}

// statusCost reads status only.
func statusCost(fs linux.FS, pid int) (Cost, error) {
	start := time.Now()
	st, err := readStatus(fs, pid)
	if err != nil {
		return Cost{}, err
	}
	c := costFromStatus(pid, MethodStatus, st)
	c.Elapsed = time.Since(start)
	return c, nil
}

// smapsCost reads smaps_rollup and status.
func smapsCost(fs linux.FS, pid int) (Cost, error) {
	start := time.Now()
	st, err := readStatus(fs, pid)
	if err != nil {
		return Cost{}, err
	}
	return smapsAfterStatus(fs, pid, st, start)
}

// smapsAfterStatus reads smaps_rollup once status has been read.
func smapsAfterStatus(fs linux.FS, pid int, st linux.Status, start time.Time) (Cost, error) {
	r, err := linux.ReadSmapsRollup(fs, pid)
	if err != nil {
		return Cost{}, err
	}
	c := costFromStatus(pid, MethodSmaps, st)
	c.Rollup = &r
	if r.PssAnonBytes == nil {
		// Kernels before 5.x: no Pss_Anon; RssAnon is the best we have.
		c.Method = MethodStatus
	} else {
		c.PssAnonBytes = *r.PssAnonBytes
	}
	c.Elapsed = time.Since(start)
	return c, nil
}

// readStatus reads status through fs (so a linux.Tap sees it); a process
// without an address space is ErrNoUserMemory.
func readStatus(fs linux.FS, pid int) (linux.Status, error) {
	st, err := linux.ReadStatus(fs, pid)
	if err == nil && !st.HasMM {
		err = ErrNoUserMemory
	}
	return st, err
}

func costFromStatus(pid int, m Method, st linux.Status) Cost {
	return Cost{PID: pid, Method: m, RssAnonBytes: st.RssAnonBytes, VmPTEBytes: st.VmPTEBytes, VmSwapBytes: st.VmSwapBytes}
}

// pageSize is the base page size of this machine.
var pageSize = uint64(os.Getpagesize())
