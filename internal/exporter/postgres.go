package exporter

import (
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/watch"
)

func collectHost(ch chan<- prometheus.Metric, s *watch.Sample) {
	for _, p := range s.Snapshot.Host.HugePools {
		inUse, ok := p.InUse()
		if p.Node >= 0 || !ok {
			continue
		}
		size := strconv.FormatUint(p.PageSizeBytes, 10)
		ch <- gauge(descHugePool, float64(p.Total+p.Surplus), size)
		ch <- gauge(descHugeInUse, float64(inUse), size)
	}
}

func labelsOf(in *postgres.Instance) []string {
	return []string{portLabel(in.Port), in.DataDir}
}

// portLabel is the port label: empty (absent) when the port is unknown,
// never 0 nor a guessed default.
func portLabel(port int) string {
	if port == 0 {
		return ""
	}
	return strconv.Itoa(port)
}

func collectPostgres(ch chan<- prometheus.Metric, s *watch.Sample) {
	host := s.Snapshot.Host
	for _, in := range s.Snapshot.Postgres {
		l := labelsOf(in)
		ch <- gauge(descInfo, 1, append(l, in.Version, in.Settings.String("huge_pages"), strconv.FormatBool(in.Connected))...)
		collectRoles(ch, in, l)
		clients := len(in.ByRole(postgres.RoleClient))
		ch <- gauge(descConnections, float64(clients), l...)
		maxConn, ok := in.Settings.Int("max_connections")
		if ok {
			ch <- gauge(descMaxConn, float64(maxConn), l...)
		}
		if in.Shared != nil {
			ch <- gauge(descShared, float64(in.Shared.SizeBytes), l...)
			ch <- gauge(descSharedPage, float64(in.Shared.PageSizeBytes), l...)
			if ok {
				proj := advise.PageTableBytes(int(maxConn), in.Shared.SizeBytes, in.Shared.PageSizeBytes)
				ch <- gauge(descPTEProj, float64(proj), l...)
			}
		}
		collectHugeNeed(ch, in, host, l)
		collectWorstCase(ch, in, host, l)
	}
}

// roleSums are one role's numbers within an instance. A sum is sent only
// when every process of the role gave its terms: a partial sum is no sample.
type roleSums struct {
	processes              int
	private, vmpte         uint64
	privateKnown, pteKnown bool
	oomMax                 int
	oomKnown               bool
}

func (r *roleSums) add(p postgres.Proc) {
	st := p.Status
	r.processes++
	if st.RssAnonBytes != nil && st.VmPTEBytes != nil && st.VmSwapBytes != nil {
		r.private += *st.RssAnonBytes + *st.VmPTEBytes + *st.VmSwapBytes
	} else {
		r.privateKnown = false
	}
	if st.VmPTEBytes != nil {
		r.vmpte += *st.VmPTEBytes
	} else {
		r.pteKnown = false
	}
	if p.OOMScore != nil {
		r.oomMax, r.oomKnown = max(r.oomMax, *p.OOMScore), true
	}
}

func collectRoles(ch chan<- prometheus.Metric, in *postgres.Instance, l []string) {
	sums := map[string]*roleSums{}
	for _, p := range in.Processes {
		r := sums[string(p.Role)]
		if r == nil {
			r = &roleSums{privateKnown: true, pteKnown: true}
			sums[string(p.Role)] = r
		}
		r.add(p)
	}
	for _, role := range sortedKeys(sums) {
		r, rl := sums[role], append(append([]string(nil), l...), role)
		ch <- gauge(descProcesses, float64(r.processes), rl...)
		if r.privateKnown {
			ch <- gauge(descPrivate, float64(r.private), rl...)
		}
		if r.pteKnown {
			ch <- gauge(descPTE, float64(r.vmpte), rl...)
		}
		if r.oomKnown {
			ch <- gauge(descOOMMax, float64(r.oomMax), rl...)
		}
	}
	if pm, ok := in.Postmaster(); ok && pm.OOMScoreAdj != nil {
		ch <- gauge(descOOMAdj, float64(*pm.OOMScoreAdj), l...)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// collectHugeNeed: pages of the huge page size the instance asks for
// (huge_page_size, else the host default) that its segment needs.
func collectHugeNeed(ch chan<- prometheus.Metric, in *postgres.Instance, host linux.Host, l []string) {
	def, _ := host.DefaultPageSize() // 0: unknown
	size := def
	if hs, ok := in.Settings.Bytes("huge_page_size"); ok && hs > 0 {
		size = hs
	}
	if size == 0 {
		return
	}
	var need uint64
	if n, ok := in.Settings.Int("shared_memory_size_in_huge_pages"); ok && n > 0 && size == def {
		need = uint64(n)
	} else if in.Shared != nil {
		need = advise.HugePagesFor(in.Shared.SizeBytes, size)
	} else {
		return
	}
	ch <- gauge(descHugeNeeded, float64(need), append(l, strconv.FormatUint(size, 10))...)
}

func collectWorstCase(ch chan<- prometheus.Metric, in *postgres.Instance, host linux.Host, l []string) {
	wc := advise.PostgresWorkload(in, advise.DefaultNodesPerQuery).WorstCase()
	ch <- gauge(descWorstCase, float64(wc.PrivateBytes), append(l, "private")...)
	ch <- gauge(descWorstCase, float64(wc.PageTablesBytes), append(l, "page_tables")...)
	ch <- gauge(descWorstCase, float64(wc.SharedBytes), append(l, "shared")...)
	if m := host.Meminfo.MemTotalBytes; m != nil {
		ch <- gauge(descLimit, float64(*m), append(l, "mem_total")...)
	}
	if mode, _ := host.Sysctls.Int("vm.overcommit_memory"); mode == 2 && host.Meminfo.CommitLimitBytes != nil {
		ch <- gauge(descLimit, float64(*host.Meminfo.CommitLimitBytes), append(l, "commit_limit")...)
	}
	if in.Cgroup != nil && in.Cgroup.LimitBytes != nil {
		ch <- gauge(descLimit, float64(*in.Cgroup.LimitBytes), append(l, "cgroup")...)
	}
}

// pssByRole sums Pss_Anon + VmPTE + VmSwap by instance and role, for
// processes whose Pss_Anon was read; read and tried count those processes
// and all database processes.
func pssByRole(s *watch.Sample) (out map[instanceKey]map[string]uint64, read, tried int) {
	out = map[instanceKey]map[string]uint64{}
	for _, in := range s.Snapshot.Postgres {
		m := map[string]uint64{}
		for _, p := range in.Processes {
			tried++
			if cost, exact, ok := p.PrivateCost(); exact && ok {
				m[string(p.Role)] += cost
				read++
			}
		}
		out[instanceKey{in.Port, in.DataDir}] = m
	}
	return out, read, tried
}

// collectPss sends the last smaps pass's costs of the instances still
// running.
func collectPss(ch chan<- prometheus.Metric, s *watch.Sample, r smapsResult) {
	for _, in := range s.Snapshot.Postgres {
		m, ok := r.private[instanceKey{in.Port, in.DataDir}]
		if !ok {
			continue
		}
		for _, role := range sortedKeys(m) {
			ch <- gauge(descPssPrivate, float64(m[role]), append(labelsOf(in), role)...)
		}
	}
}
