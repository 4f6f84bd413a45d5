package postgres

import (
	"math"
	"sort"

	"github.com/dbmem/dbmem/internal/units"
)

// Summary is the per-instance arithmetic the report shows. It is computed
// from an Instance alone; no I/O. A sum is nil (unknown, omitted in JSON)
// when a process lacks one of its terms: a partial sum is not the sum.
type Summary struct {
	Processes      int `json:"processes"`
	ClientBackends int `json:"client_backends"`
	// PrivateBytes is the sum over processes of Pss_Anon + VmPTE + VmSwap:
	// what the instance costs beyond its shared memory. PrivateExact is false
	// when some process lacked Pss_Anon and RssAnon stood in for it.
	PrivateBytes *uint64 `json:"private_bytes,omitempty"`
	PrivateExact bool    `json:"private_exact"`
	// ClientMedianBytes and ClientP95Bytes are the private cost of one client
	// backend (nearest-rank percentiles); nil without client backends.
	ClientMedianBytes *uint64 `json:"client_median_bytes,omitempty"`
	ClientP95Bytes    *uint64 `json:"client_p95_bytes,omitempty"`
	// RSSBytes is what ps and top add up to, shared memory counted once per
	// process that touched it.
	RSSBytes      *uint64 `json:"rss_bytes,omitempty"`
	PssBytes      *uint64 `json:"pss_bytes,omitempty"` // every process's smaps_rollup read
	VmPTEBytes    *uint64 `json:"vm_pte_bytes,omitempty"`
	HugetlbBytes  *uint64 `json:"hugetlb_bytes,omitempty"`
	RssShmemBytes *uint64 `json:"rss_shmem_bytes,omitempty"`
	SwapBytes     *uint64 `json:"swap_bytes,omitempty"`
}

// sum adds values; a nil term makes the sum unknown.
type sum struct {
	v       uint64
	unknown bool
}

func (s *sum) add(v *uint64) {
	if v == nil {
		s.unknown = true
		return
	}
	s.v += *v
}

func (s sum) value() *uint64 {
	if s.unknown {
		return nil
	}
	return &s.v
}

// Summarize adds up an instance's processes.
func Summarize(in *Instance) Summary {
	s := Summary{Processes: len(in.Processes), PrivateExact: true}
	var clients []uint64
	var private, rss, pte, shmem, swap, pss, huge sum
	clientsKnown := true
	for _, p := range in.Processes {
		cost, exact, ok := p.PrivateCost()
		private.add(units.Opt(cost, ok))
		s.PrivateExact = s.PrivateExact && exact
		st := p.Status
		rss.add(st.VmRSSBytes)
		pte.add(st.VmPTEBytes)
		shmem.add(st.RssShmemBytes)
		swap.add(st.VmSwapBytes)
		huge.add(units.Opt(p.HugetlbBytes()))
		if p.Rollup != nil {
			pss.add(&p.Rollup.PssBytes)
		} else {
			pss.add(nil)
		}
		if p.Role == RoleClient {
			clients, clientsKnown = append(clients, cost), clientsKnown && ok
		}
	}
	s.PrivateBytes, s.RSSBytes, s.VmPTEBytes = private.value(), rss.value(), pte.value()
	s.RssShmemBytes, s.SwapBytes, s.PssBytes, s.HugetlbBytes = shmem.value(), swap.value(), pss.value(), huge.value()
	s.PrivateExact = s.PrivateExact && s.PrivateBytes != nil
	s.ClientBackends = len(clients)
	if len(clients) > 0 && clientsKnown {
		s.ClientMedianBytes = new(Percentile(clients, 50))
		s.ClientP95Bytes = new(Percentile(clients, 95))
	}
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
