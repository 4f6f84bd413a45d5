package linux

import (
	"fmt"
	"github.com/dbmem/dbmem/internal/measure"
	"strings"

	"github.com/dbmem/dbmem/internal/redact"
)

// Process is one process's memory as the kernel reports it.
type Process struct {
	PID        int    `json:"pid"`
	PPid       int    `json:"ppid"`
	Comm       string `json:"comm"`
	Title      string `json:"title"` // cmdline joined with spaces
	StartTicks uint64 `json:"start_ticks"`
	MinFlt     uint64 `json:"min_flt"`
	MajFlt     uint64 `json:"maj_flt"`
	Status     Status `json:"status"`
	// Rollup is nil when smaps_rollup was not read (not asked for, not
	// permitted, or an old kernel).
	Rollup *SmapsRollup `json:"smaps_rollup,omitempty"`
	// Private is Pss_Anon measured without smaps_rollup (internal/pagecost's
	// exact fast path); nil when not measured that way.
	Private *PrivateMeasure `json:"private,omitempty"`
	// OOMScore and OOMScoreAdj are nil when they could not be read.
	OOMScore    *int `json:"oom_score,omitempty"`
	OOMScoreAdj *int `json:"oom_score_adj,omitempty"`
}

// PrivateMeasure is a process's Pss_Anon as internal/pagecost measured it
// from pagemap and /proc/kpagecount: the same number smaps_rollup gives,
// without walking the page tables of shared memory.
type PrivateMeasure struct {
	// Method names how it was measured ("fast").
	Method       string `json:"method"`
	PssAnonBytes uint64 `json:"pss_anon_bytes"`
}

// ReadProcess reads one process. An error for which IsGone is true means the
// process exited; the caller skips it. Files that cannot be read for other
// reasons become gaps and leave their fields nil (unknown). m chooses how
// much to read: measure.Smaps adds smaps_rollup (Pss), exact but it walks
// the page tables, about 40 ms per process that touched 3 GiB through 4 KiB
// pages; any other method reads status only.
func ReadProcess(fs FS, pid int, m measure.Method) (Process, []Gap, error) {
	p := Process{PID: pid}
	st, err := ReadStat(fs, pid)
	if err != nil {
		return p, nil, err
	}
	p.PPid, p.Comm, p.StartTicks, p.MinFlt, p.MajFlt = st.PPid, st.Comm, st.StartTicks, st.MinFlt, st.MajFlt
	if p.Status, err = ReadStatus(fs, pid); err != nil {
		return p, nil, err
	}
	var gaps []Gap
	args, err := ReadCmdline(fs, pid)
	if err != nil {
		gaps = append(gaps, procGap(pid, "cmdline", err))
	}
	p.Title = redact.Title(args) // secrets in other processes' arguments never reach an output
	if p.OOMScore, p.OOMScoreAdj, err = ReadOOM(fs, pid); err != nil {
		gaps = append(gaps, procGap(pid, "oom_score", err))
	}
	if m.Rollup() {
		if r, err := ReadSmapsRollup(fs, pid); err != nil {
			gaps = append(gaps, procGap(pid, "smaps_rollup", err))
		} else {
			p.Rollup = &r
		}
	}
	return p, append(dropGone(gaps), missingLines(p)...), nil
}

// missingLines names the lines of status and smaps_rollup the process's
// files lacked: their numbers are unknown, not 0.
func missingLines(p Process) []Gap {
	var gaps []Gap
	if miss := p.Status.Missing(); p.Status.HasMM && len(miss) > 0 {
		gaps = append(gaps, Gap{What: fmt.Sprintf("/proc/%d/status lines %s", p.PID, strings.Join(miss, ", ")),
			Why: "not in the file (RssAnon, RssFile and RssShmem appeared in 4.5, HugetlbPages in 4.4; or a partial copy): unknown"})
	}
	if r := p.Rollup; r != nil {
		var miss []string
		for _, l := range rollupLines {
			if *l.field(r) == nil {
				miss = append(miss, l.key)
			}
		}
		if len(miss) > 0 {
			gaps = append(gaps, Gap{What: fmt.Sprintf("/proc/%d/smaps_rollup lines %s", p.PID, strings.Join(miss, ", ")),
				Why: "not in the file (Pss_Anon, Pss_File and Pss_Shmem appeared in 5.x; or a partial copy): unknown"})
		}
	}
	return gaps
}

func procGap(pid int, file string, err error) Gap {
	return gapFor(fmt.Sprintf("/proc/%d/%s", pid, file), err)
}

// dropGone removes gaps caused by the process exiting mid-read.
func dropGone(gaps []Gap) []Gap {
	var out []Gap
	for _, g := range gaps {
		if !g.Is(GapAbsent) {
			out = append(out, g)
		}
	}
	return out
}

// PrivateCost is what this process costs beyond memory shared with others:
// Pss_Anon + VmPTE + VmSwap, with Pss_Anon from smaps_rollup or from the
// fast path (Private). Without either it falls back to RssAnon, which
// over-counts pages still shared copy-on-write with the parent; exact
// tells which. ok is false when a term is unknown (a status line missing).
func (p Process) PrivateCost() (bytes uint64, exact, ok bool) {
	s := p.Status
	if s.VmPTEBytes == nil || s.VmSwapBytes == nil {
		return 0, false, false
	}
	rest := *s.VmPTEBytes + *s.VmSwapBytes
	switch {
	case p.Rollup != nil && p.Rollup.PssAnonBytes != nil:
		return *p.Rollup.PssAnonBytes + rest, true, true
	case p.Private != nil:
		return p.Private.PssAnonBytes + rest, true, true
	case s.RssAnonBytes != nil:
		return *s.RssAnonBytes + rest, false, true
	}
	return 0, false, false
}

// HugetlbBytes is the hugetlbfs memory the process maps. smaps_rollup's
// Shared_Hugetlb + Private_Hugetlb is used when read: status's HugetlbPages
// under-counts when page tables of a shared hugetlb mapping are shared (PMD
// sharing), as they are between PostgreSQL backends. ok is false when
// neither says.
func (p Process) HugetlbBytes() (uint64, bool) {
	if r := p.Rollup; r != nil && r.SharedHugetlbBytes != nil && r.PrivateHugetlbBytes != nil {
		return *r.SharedHugetlbBytes + *r.PrivateHugetlbBytes, true
	}
	if p.Status.HugetlbPageBytes != nil {
		return *p.Status.HugetlbPageBytes, true
	}
	return 0, false
}
