package main

import (
	"slices"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// configResult is one configuration: a server setting and a number of
// backends, with every tool's runs.
type configResult struct {
	Huge       string    `json:"huge_pages"`
	Shared     string    `json:"shared_buffers"`
	Backends   int       `json:"backends"`
	TableBytes uint64    `json:"table_bytes"`
	Started    time.Time `json:"started"`
	// Medians over the backends of what status said before the runs: the
	// page tables and the shared memory each backend mapped.
	VmPTEMedian    uint64    `json:"vm_pte_median"`
	RssShmemMedian uint64    `json:"rss_shmem_median"`
	HugetlbMedian  uint64    `json:"hugetlb_pages_median"`
	MemAvailable   uint64    `json:"mem_available"`
	LoadStart      string    `json:"load_start"`
	LoadEnd        string    `json:"load_end"`
	Tools          []toolRun `json:"tools"`
	Agreement      agreement `json:"agreement"`
}

func (b *bench) newResult(g group, n int, pids []int) configResult {
	table, _ := tableBytes(g.Shared)
	r := configResult{Huge: g.Huge, Shared: g.Shared, Backends: n, TableBytes: table, Started: time.Now(), LoadStart: loadAvg()}
	r.MemAvailable, _ = memAvailable()
	var pte, shmem, huge []uint64
	for _, pid := range pids {
		if st, err := linux.ReadStatus(linux.DefaultFS(), pid); err == nil && st.VmPTEBytes != nil && st.RssShmemBytes != nil && st.HugetlbPageBytes != nil {
			pte, shmem, huge = append(pte, *st.VmPTEBytes), append(shmem, *st.RssShmemBytes), append(huge, *st.HugetlbPageBytes)
		}
	}
	r.VmPTEMedian, r.RssShmemMedian, r.HugetlbMedian = median(pte), median(shmem), median(huge)
	return r
}

// tool returns the runs of the named tool, nil if it did not run.
func (r configResult) tool(name string) *toolRun {
	for i := range r.Tools {
		if r.Tools[i].Tool == name && len(r.Tools[i].Runs) > 0 {
			return &r.Tools[i]
		}
	}
	return nil
}

// median of a run statistic.
func (t *toolRun) median(f func(runStat) int64) int64 {
	v := make([]int64, len(t.Runs))
	for i, r := range t.Runs {
		v[i] = f(r)
	}
	return median(v)
}

func wallNS(r runStat) int64     { return r.WallNS }
func cpuNS(r runStat) int64      { return r.CPUNS() }
func rssKB(r runStat) int64      { return r.MaxRSSKB }
func innerW(r runStat) int64     { return r.InnerWallNS }
func innerC(r runStat) int64     { return r.InnerCPUNS }
func private(v procValue) uint64 { return v.Private }

// median returns the middle value (the mean of the two middle ones for an
// even count), 0 for none.
func median[T int64 | uint64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return s[len(s)/2-1]/2 + s[len(s)/2]/2
}
