package advise

import (
	"fmt"
	"sort"

	"github.com/dbmem/dbmem/internal/linux"
)

// The kernel's OOM arithmetic (mm/oom_kill.c oom_badness, fs/proc/base.c
// proc_oom_score), in pages:
//
//	badness = rss (anon + file + shmem) + swap entries + page-table pages
//	          + oom_score_adj x totalpages / 1000
//	totalpages = RAM pages + swap pages (a memory cgroup's limit in a cgroup OOM)
//	oom_score (5.9+) = (1000 + badness x 1000 / totalpages) x 2 / 3
//
// A process with oom_score_adj -1000, or without memory (a kernel thread),
// or init is never chosen. Hugetlb pages are in none of these counters:
// shared memory in huge pages does not make a process a victim, shared
// memory in 4 KiB pages counts in full (RssShmem) in every process that
// touched it.

// OOMCandidate is one process as the OOM killer weighs it.
type OOMCandidate struct {
	PID   int    `json:"pid"`
	Label string `json:"label"` // "postgres checkpointer (5432)", "java"
	// Badness is the kernel's badness in pages; the process with the highest
	// is killed first.
	Badness int64 `json:"badness_pages"`
	// Score is the predicted /proc/PID/oom_score; KernelScore is what the
	// kernel printed when the process was read (nil: not read).
	Score       int64  `json:"score"`
	KernelScore *int   `json:"kernel_score,omitempty"`
	RSSBytes    uint64 `json:"rss_bytes"`
	// ShmemBytes is RssShmem, nil on kernels before 4.5.
	ShmemBytes *uint64 `json:"rss_shmem_bytes,omitempty"`
	SwapBytes  uint64  `json:"swap_bytes"`
	PTEBytes   uint64  `json:"pte_bytes"`
	Adj        int     `json:"oom_score_adj"`
	Database   bool    `json:"database"`
}

// TotalPages is the kernel's totalpages for a host-wide OOM: RAM plus swap,
// in base pages; ok is false when MemTotal or SwapTotal is unknown.
func TotalPages(m linux.Meminfo) (uint64, bool) {
	if m.MemTotalBytes == nil || m.SwapTotalBytes == nil {
		return 0, false
	}
	return (*m.MemTotalBytes + *m.SwapTotalBytes) / basePage, true
}

// oomKnown reports whether the numbers the badness needs were read:
// VmRSS, VmSwap, VmPTE and oom_score_adj.
func oomKnown(p linux.Process) bool {
	s := p.Status
	return s.VmRSSBytes != nil && s.VmSwapBytes != nil && s.VmPTEBytes != nil && p.OOMScoreAdj != nil
}

// Badness returns the kernel's badness of p in pages; eligible is false for
// processes the OOM killer never picks, and for those whose numbers were
// not read (oomKnown): their badness is unknown, not 0.
func Badness(p linux.Process, totalPages uint64) (badness int64, eligible bool) {
	if p.PID == 1 || !p.Status.HasMM || !oomKnown(p) || *p.OOMScoreAdj <= -1000 {
		return 0, false
	}
	s := p.Status
	pages := (*s.VmRSSBytes + *s.VmSwapBytes + *s.VmPTEBytes) / basePage
	return int64(pages) + int64(*p.OOMScoreAdj)*int64(totalPages/1000), true
}

// OOMScore is what /proc/PID/oom_score prints on kernels 5.9 and later.
func OOMScore(badness int64, totalPages uint64) int64 {
	return OOMScoreFor(badness, totalPages, OOMScore59)
}

// OOMFormula is how a kernel turns badness into /proc/PID/oom_score.
type OOMFormula int

// The formulas (fs/proc/base.c proc_oom_score):
//
//	OOMScore59     5.9 and later: (1000 + badness x 1000 / totalpages) x 2 / 3
//	OOMScoreLegacy 2.6.36 to 5.8: max(badness, 1) x 1000 / totalpages
//
// Before 4.17 the kernel also gave processes with CAP_SYS_ADMIN a 3% bonus
// (3.10: 30 points of oom_score_adj; 3.14-4.16: 3% of their pages); dbmem
// does not read capabilities for every process, so a root process's
// prediction on such a kernel can read a little high.
const (
	OOMScore59 OOMFormula = iota
	OOMScoreLegacy
)

func (f OOMFormula) String() string {
	if f == OOMScoreLegacy {
		return "max(badness, 1) x 1000 / totalpages (kernels before 5.9)"
	}
	return "(1000 + badness x 1000 / totalpages) x 2 / 3 (kernel 5.9+)"
}

// OOMFormulaFor is the formula of a kernel release ("3.10.0-1160.el7.x86_64");
// an unknown release is taken as current (5.9+).
func OOMFormulaFor(release string) OOMFormula {
	var major, minor int
	if n, _ := fmt.Sscanf(release, "%d.%d", &major, &minor); n == 2 && (major < 5 || major == 5 && minor < 9) {
		return OOMScoreLegacy
	}
	return OOMScore59
}

// OOMScoreFor is what /proc/PID/oom_score prints with formula f.
func OOMScoreFor(badness int64, totalPages uint64, f OOMFormula) int64 {
	if totalPages == 0 {
		return 0
	}
	if f == OOMScoreLegacy {
		return max(badness, 1) * 1000 / int64(totalPages)
	}
	v := (1000 + badness*1000/int64(totalPages)) * 2 / 3
	if v < 0 {
		return 0
	}
	return v
}

// labeled is a process with a name for people.
type labeled struct {
	linux.Process
	Label    string
	Database bool
}

// RankOOM orders the eligible processes by badness, the first being the
// kernel's first victim, each with its oom_score predicted by formula f.
// unknown counts the processes left out because their numbers were not
// read.
func RankOOM(procs []labeled, totalPages uint64, f OOMFormula) (out []OOMCandidate, unknown int) {
	for _, p := range procs {
		b, ok := Badness(p.Process, totalPages)
		if !ok {
			if p.PID != 1 && p.Status.HasMM && !oomKnown(p.Process) {
				unknown++
			}
			continue
		}
		s := p.Status
		out = append(out, OOMCandidate{
			PID: p.PID, Label: p.Label, Badness: b, Score: OOMScoreFor(b, totalPages, f), KernelScore: p.OOMScore,
			RSSBytes: *s.VmRSSBytes, ShmemBytes: s.RssShmemBytes, SwapBytes: *s.VmSwapBytes, PTEBytes: *s.VmPTEBytes,
			Adj: *p.OOMScoreAdj, Database: p.Database,
		})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Badness != out[j].Badness {
			return out[i].Badness > out[j].Badness
		}
		return out[i].PID < out[j].PID
	})
	return out, unknown
}
