package budget

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// DefaultReserve is the share of the memory left to the page cache when
// the caller gives none: the plan's vm.overcommit_ratio keeps the same
// reserve (seed 001: "Cache OS = 20% RAM").
const DefaultReserve = 0.20

// Host is what bounds a server's private memory on its host.
type Host struct {
	RAMBytes uint64 `json:"ram_bytes"`
	// CgroupLimitBytes is the memory limit of the server's cgroup (the
	// lowest on its path), nil when there is none.
	CgroupLimitBytes *uint64 `json:"cgroup_limit_bytes,omitempty"`
	CgroupPath       string  `json:"cgroup_path,omitempty"`
	// HugePoolBytes is RAM held in huge page pools (the planned pool, else
	// the pools now): no process's private memory can use it.
	HugePoolBytes uint64 `json:"huge_pool_bytes"`
	// SharedBytes is the server's shared memory; SharedInHugePages says
	// whether it is in the pool (then it is part of HugePoolBytes).
	SharedBytes       uint64 `json:"shared_bytes"`
	SharedInHugePages bool   `json:"shared_in_huge_pages"`
	// CoHostedBytes is the measured private memory of every other process
	// (in the server's cgroup when the limit is a cgroup's); nil when not
	// measured (a what-if). CoHostedFrom says how it was measured.
	CoHostedBytes *uint64 `json:"co_hosted_bytes,omitempty"`
	CoHostedFrom  string  `json:"co_hosted_from,omitempty"`
	// Reserve is the share kept for the page cache (0: DefaultReserve).
	Reserve float64 `json:"reserve"`
	// CommitLimitBytes is CommitLimit under strict overcommit
	// (vm.overcommit_memory=2), planned or now; nil when overcommit is not
	// strict. CommitFrom says which.
	CommitLimitBytes *uint64 `json:"commit_limit_bytes,omitempty"`
	CommitFrom       string  `json:"commit_from,omitempty"`
	// CPUs is the number of CPUs online, 0 when unknown.
	CPUs int `json:"cpus,omitempty"`
}

// Limit sources.
const (
	FromRAM         = "RAM"
	FromCgroup      = "cgroup"
	FromCommitLimit = "CommitLimit"
)

// Limit is what the server's private memory may use.
type Limit struct {
	Bytes   uint64
	Source  string
	Formula string
	Lines   []Line
}

// ComputeLimit takes RAM (or the cgroup limit when lower), less the huge
// page pool, less the shared memory outside huge pages, less the co-hosted
// processes' private memory, less the page-cache reserve; under strict
// overcommit, CommitLimit less the co-hosted private memory and the shared
// memory outside huge pages (both count in Committed_AS) when that is
// lower. It says which bound it is.
func ComputeLimit(h Host) Limit {
	ram := memoryLimit(h)
	if h.CommitLimitBytes == nil {
		return ram
	}
	commit := commitLimit(h)
	if commit.Bytes < ram.Bytes {
		commit.Formula += fmt.Sprintf(" (the %s-based limit is %s)", ram.Source, units.Bytes(ram.Bytes))
		return commit
	}
	ram.Formula += fmt.Sprintf(" (under strict overcommit, CommitLimit leaves %s)", units.Bytes(commit.Bytes))
	return ram
}

func memoryLimit(h Host) Limit {
	l := Limit{Source: FromRAM}
	base := h.RAMBytes
	l.Lines = append(l.Lines, Line{Name: "RAM", Formula: "MemTotal", Bytes: h.RAMBytes})
	inCgroup := h.CgroupLimitBytes != nil && *h.CgroupLimitBytes < h.RAMBytes
	if inCgroup {
		base = *h.CgroupLimitBytes
		l.Source = FromCgroup
		l.Lines = []Line{{Name: "cgroup limit", Formula: "memory limit of " + units.Or(h.CgroupPath, units.Unknown), Bytes: base}}
	} else if h.HugePoolBytes > 0 {
		// Huge pages are charged to the hugetlb controller, not to a memory
		// cgroup's limit: only RAM loses them.
		l.Lines = append(l.Lines, Line{Name: "huge page pool", Formula: "reserved, usable only as huge pages", Bytes: h.HugePoolBytes, Minus: true})
	}
	if !h.SharedInHugePages && h.SharedBytes > 0 {
		l.Lines = append(l.Lines, Line{Name: "shared memory", Formula: "outside huge pages", Bytes: h.SharedBytes, Minus: true})
	}
	l.Lines = append(l.Lines, coHostedLine(h))
	reserve := uint64(float64(base) * reserveOf(h))
	l.Lines = append(l.Lines, Line{Name: "page-cache reserve", Formula: fmt.Sprintf("%g%% of %s", reserveOf(h)*100, units.Bytes(base)),
		Bytes: reserve, Minus: true})
	l.Bytes, l.Formula = sumLines(l.Lines)
	return l
}

func commitLimit(h Host) Limit {
	l := Limit{Source: FromCommitLimit}
	l.Lines = append(l.Lines, Line{Name: "CommitLimit", Formula: units.Or(h.CommitFrom, units.Unknown) + ", vm.overcommit_memory=2", Bytes: *h.CommitLimitBytes})
	if !h.SharedInHugePages && h.SharedBytes > 0 {
		l.Lines = append(l.Lines, Line{Name: "shared memory", Formula: "outside huge pages: counted in Committed_AS", Bytes: h.SharedBytes, Minus: true})
	}
	l.Lines = append(l.Lines, coHostedLine(h))
	l.Bytes, l.Formula = sumLines(l.Lines)
	return l
}

func coHostedLine(h Host) Line {
	if h.CoHostedBytes == nil {
		return Line{Name: "co-hosted processes (not measured)", Formula: "not measured (what-if): none assumed", Minus: true}
	}
	return Line{Name: "co-hosted processes", Formula: units.Or(h.CoHostedFrom, units.Unknown), Bytes: *h.CoHostedBytes, Minus: true}
}

func reserveOf(h Host) float64 {
	if h.Reserve <= 0 || h.Reserve >= 1 {
		return DefaultReserve
	}
	return h.Reserve
}

// sumLines adds the first line and subtracts the others marked Minus (a
// result below zero is zero), and writes the formula.
func sumLines(lines []Line) (uint64, string) {
	var total uint64
	f := ""
	for i, l := range lines {
		switch {
		case i == 0:
			total = l.Bytes
			f = units.Bytes(l.Bytes) + " " + l.Name
		case l.Minus:
			total = units.Sub(total, l.Bytes)
			f += " - " + units.Bytes(l.Bytes) + " " + l.Name
		default:
			total += l.Bytes
			f += " + " + units.Bytes(l.Bytes) + " " + l.Name
		}
	}
	return total, f + " = " + units.Bytes(total)
}
