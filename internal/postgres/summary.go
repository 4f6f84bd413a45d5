package postgres

import (
	"math"
	"sort"
)

// Summary is the per-instance arithmetic the report shows. It is computed
// from an Instance alone; no I/O.
type Summary struct {
	Processes      int `json:"processes"`
	ClientBackends int `json:"client_backends"`
	// PrivateBytes is the sum over processes of Pss_Anon + VmPTE + VmSwap:
	// what the instance costs beyond its shared memory. PrivateExact is false
	// when some process lacked Pss_Anon and RssAnon stood in for it.
	PrivateBytes uint64 `json:"private_bytes"`
	PrivateExact bool   `json:"private_exact"`
	// ClientMedianBytes and ClientP95Bytes are the private cost of one client
	// backend (nearest-rank percentiles).
	ClientMedianBytes uint64 `json:"client_median_bytes"`
	ClientP95Bytes    uint64 `json:"client_p95_bytes"`
	// RSSBytes is what ps and top add up to, shared memory counted once per
	// process that touched it.
	RSSBytes      uint64 `json:"rss_bytes"`
	PssBytes      uint64 `json:"pss_bytes"`
	VmPTEBytes    uint64 `json:"vm_pte_bytes"`
	HugetlbBytes  uint64 `json:"hugetlb_bytes"`
	RssShmemBytes uint64 `json:"rss_shmem_bytes"`
	SwapBytes     uint64 `json:"swap_bytes"`
}

// Summarize adds up an instance's processes.
func Summarize(in *Instance) Summary {
	s := Summary{Processes: len(in.Processes), PrivateExact: true}
	var clients []uint64
	for _, p := range in.Processes {
		cost, exact := p.PrivateCost()
		s.PrivateBytes += cost
		s.PrivateExact = s.PrivateExact && exact
		st := p.Status
		s.RSSBytes += st.VmRSSBytes
		s.VmPTEBytes += st.VmPTEBytes
		s.RssShmemBytes += st.RssShmemBytes
		s.SwapBytes += st.VmSwapBytes
		if p.Rollup != nil {
			s.PssBytes += p.Rollup.PssBytes
		}
		if p.Role == RoleClient {
			clients = append(clients, cost)
		}
	}
	s.ClientBackends = len(clients)
	s.ClientMedianBytes = Percentile(clients, 50)
	s.ClientP95Bytes = Percentile(clients, 95)
	return s
}

// Percentile returns the nearest-rank percentile p (0-100] of values, 0 for
// none. It does not modify values.
func Percentile(values []uint64, p float64) uint64 {
	if len(values) == 0 {
		return 0
	}
	v := append([]uint64(nil), values...)
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	rank := int(math.Ceil(p / 100 * float64(len(v))))
	if rank < 1 {
		rank = 1
	}
	if rank > len(v) {
		rank = len(v)
	}
	return v[rank-1]
}
