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
		if p.Node >= 0 {
			continue
		}
		size := strconv.FormatUint(p.PageSizeBytes, 10)
		ch <- gauge(descHugePool, float64(p.Total+p.Surplus), size)
		ch <- gauge(descHugeInUse, float64(p.InUse()), size)
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

// roleSums are one role's numbers within an instance.
type roleSums struct {
	processes      int
	private, vmpte uint64
	oomMax         int
}

func collectRoles(ch chan<- prometheus.Metric, in *postgres.Instance, l []string) {
	sums := map[string]*roleSums{}
	for _, p := range in.Processes {
		r := sums[string(p.Role)]
		if r == nil {
			r = &roleSums{oomMax: p.OOMScore}
			sums[string(p.Role)] = r
		}
		st := p.Status
		r.processes++
		r.private += st.RssAnonBytes + st.VmPTEBytes + st.VmSwapBytes
		r.vmpte += st.VmPTEBytes
		r.oomMax = max(r.oomMax, p.OOMScore)
	}
	for _, role := range sortedKeys(sums) {
		r, rl := sums[role], append(append([]string(nil), l...), role)
		ch <- gauge(descProcesses, float64(r.processes), rl...)
		ch <- gauge(descPrivate, float64(r.private), rl...)
		ch <- gauge(descPTE, float64(r.vmpte), rl...)
		ch <- gauge(descOOMMax, float64(r.oomMax), rl...)
	}
	if pm, ok := in.Postmaster(); ok {
		ch <- gauge(descOOMAdj, float64(pm.OOMScoreAdj), l...)
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
	size := host.Meminfo.HugepagesizeBytes
	if hs, ok := in.Settings.Bytes("huge_page_size"); ok && hs > 0 {
		size = hs
	}
	if size == 0 {
		return
	}
	var need uint64
	if n, ok := in.Settings.Int("shared_memory_size_in_huge_pages"); ok && n > 0 && size == host.Meminfo.HugepagesizeBytes {
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
	ch <- gauge(descLimit, float64(host.Meminfo.MemTotalBytes), append(l, "mem_total")...)
	if mode, _ := host.Sysctls.Int("vm.overcommit_memory"); mode == 2 {
		ch <- gauge(descLimit, float64(host.Meminfo.CommitLimitBytes), append(l, "commit_limit")...)
	}
	if in.Cgroup != nil && in.Cgroup.LimitBytes != nil {
		ch <- gauge(descLimit, float64(*in.Cgroup.LimitBytes), append(l, "cgroup")...)
	}
}

// pssByRole sums Pss_Anon + VmPTE + VmSwap by instance and role, for
// processes whose Pss_Anon was read.
func pssByRole(s *watch.Sample) map[instanceKey]map[string]uint64 {
	out := map[instanceKey]map[string]uint64{}
	for _, in := range s.Snapshot.Postgres {
		m := map[string]uint64{}
		for _, p := range in.Processes {
			if cost, exact := p.PrivateCost(); exact {
				m[string(p.Role)] += cost
			}
		}
		out[instanceKey{in.Port, in.DataDir}] = m
	}
	return out
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
