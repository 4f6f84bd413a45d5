package advise

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/mysql"

	"github.com/dbmem/dbmem/internal/units"
)

// oomRanking lists the processes the kernel would kill first, and flags a
// database process at the top because of shared memory counted in its RSS.
func oomRanking(h host) []finding.Finding {
	m := h.Meminfo
	procs := h.oomProcesses()
	if len(procs) == 0 || !h.need("oom.ranking", "host", known(inMemTotal, m.MemTotalBytes), known(inSwapTotal, m.SwapTotalBytes)) {
		return nil
	}
	total, _ := TotalPages(m)
	formula := OOMFormulaFor(h.KernelRelease)
	rank, unknown := RankOOM(procs, total, formula)
	if len(rank) == 0 {
		if unknown > 0 {
			h.need("oom.ranking", "host", have(fmt.Sprintf("VmRSS, VmSwap, VmPTE or oom_score_adj of %d processes (/proc/PID)", unknown), false))
		}
		return nil
	}
	top := rank[0]
	f := finding.Finding{
		ID: "oom.ranking", Severity: finding.Info, Subject: "host",
		Title: fmt.Sprintf("first OOM victim would be pid %d %s (oom_score %s)", top.PID, top.Label, intOf(top.KernelScore)),
		Why: "The kernel kills the process with the highest badness: rss (anon + file + shmem) + swap + page tables " +
			"+ oom_score_adj x totalpages / 1000. Shared memory in 4 KiB pages counts in full in every process that touched it, " +
			"so a checkpointer or background writer that wrote all of shared_buffers looks that big; hugetlb pages count in none.",
		Fix: "Put shared memory in huge pages; give the postmaster OOMScoreAdjust=-1000 and its children PG_OOM_ADJUST_VALUE=0.",
	}
	if isMySQLLabel(top.Label) {
		f.Why = "The kernel kills the process with the highest badness: rss (anon + file + shmem) + swap + page tables " +
			"+ oom_score_adj x totalpages / 1000. A MySQL/MariaDB server is one process holding the buffer pool and every " +
			"connection's buffers, so it is often the largest, and its death drops every connection and starts crash recovery."
		f.Fix = "Bound the server's worst case (max_connections x per-thread buffers + buffer pool) below RAM, with the buffer " +
			"pool within MySQL's sizing for the RAM; where RAM allows, put it in huge pages (large_pages=ON; hugetlb pages count " +
			"in no badness); and if other processes may die instead set OOMScoreAdjust= in the server's unit."
	}
	if h.Opts.Processes == nil {
		f.Title += " among the database processes (other processes not read)"
	}
	if unknown > 0 {
		f.Title += fmt.Sprintf("; %d processes not ranked (their VmRSS, VmSwap, VmPTE or oom_score_adj not read)", unknown)
	}
	for i, c := range rank {
		if i == OOMShown {
			break
		}
		f.Evidence = append(f.Evidence, ev(fmt.Sprintf("#%d pid %d %s", i+1, c.PID, c.Label), oomText(c, total), "/proc/PID/status, oom_score"))
	}
	f.Evidence = append(f.Evidence, ev("oom_score", formula.String()+", totalpages "+fmt.Sprint(total)+" (RAM + swap)",
		"kernel "+cmp.Or(h.KernelRelease, "release unknown")))
	if sh := top.ShmemBytes; top.Database && sh != nil && *sh >= OOMShmemFloor && *sh*2 >= uint64(top.Badness)*basePage {
		f.Severity = finding.Warning
		f.Title = fmt.Sprintf("pid %d %s is the first OOM victim because of %s of shared memory in its RSS", top.PID, top.Label, units.Bytes(*sh))
	}
	return []finding.Finding{f}
}

// isMySQLLabel tells a MySQL/MariaDB server's label (mysqlProcess, or the
// bare process name when the server was not discovered).
func isMySQLLabel(label string) bool {
	comm, _, _ := strings.Cut(label, " ")
	return mysql.IsServerComm(comm)
}

func oomText(c OOMCandidate, total uint64) string {
	s := fmt.Sprintf("badness %d pages: rss %s (shmem %s)", c.Badness, units.Bytes(c.RSSBytes), bytesOf(c.ShmemBytes))
	if c.SwapBytes > 0 {
		s += ", swap " + units.Bytes(c.SwapBytes)
	}
	s += ", page tables " + units.Bytes(c.PTEBytes)
	if c.Adj != 0 {
		s += fmt.Sprintf(", adj %d x %d", c.Adj, total/1000)
	}
	return s + fmt.Sprintf("; oom_score %d (kernel: %s)", c.Score, intOf(c.KernelScore))
}

// intOf renders an optional number, "unknown" when it was not read.
func intOf(p *int) string {
	if p == nil {
		return "unknown"
	}
	return strconv.Itoa(*p)
}

// oomProcesses labels every process to rank: the host's when given (the
// database ones keep their role), else the databases' own.
func (h host) oomProcesses() []labeled {
	known := map[int]labeled{}
	var out []labeled
	for _, in := range h.Instances {
		for _, p := range in.Procs {
			known[p.PID] = p
			out = append(out, p)
		}
	}
	if h.Opts.Processes == nil {
		return out
	}
	out = out[:0]
	for _, p := range h.Opts.Processes {
		if l, ok := known[p.PID]; ok {
			l.Process = p
			out = append(out, l)
			continue
		}
		out = append(out, labeled{Process: p, Label: p.Comm})
	}
	return out
}
