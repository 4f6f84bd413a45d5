package exporter

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

func collectHost(out *sink, s *sampler.Sample) {
	if v, _, ok := s.Snapshot.Host.Meminfo.Available(); ok {
		out.gauge(descAvailable, float64(v))
	}
	for _, p := range s.Snapshot.Host.HugePools {
		inUse, ok := p.InUse()
		if p.Node >= 0 || !ok {
			continue
		}
		size := strconv.FormatUint(p.PageSizeBytes, 10)
		out.gauge(descHugePool, float64(p.Total+p.Surplus), size)
		out.gauge(descHugeInUse, float64(inUse), size)
	}
}

// pgLabels are the label values of every PostgreSQL instance of a sample,
// in its order.
func pgLabels(s *sampler.Sample) [][]string {
	keys := make([]instKey, len(s.Snapshot.Postgres))
	for i, in := range s.Snapshot.Postgres {
		keys[i] = instKey{in.Port, in.DataDir, in.PostmasterPID}
	}
	return instanceLabels(keys)
}

// collectPostgres sends every instance's metrics, each instance on its own:
// one that fails is left out with dbmem_instance_scrape_success 0.
func collectPostgres(out *sink, s *sampler.Sample, pss smapsResult, boot time.Time) {
	labels := pgLabels(s)
	for i, in := range s.Snapshot.Postgres {
		l := labels[i]
		ok := out.collectInstance("postgresql "+in.DataDir, func() {
			collectInstance(out, in, s.Snapshot.Host, l)
			collectLongLived(out, in, boot, s.Snapshot.TakenAt, l)
			collectPss(out, pss.private[in.PostmasterPID], l)
		})
		out.gauge(descInstOK, b2f(ok), with(l, "postgresql")...)
		out.gauge(descInstGaps, float64(len(in.Gaps)), with(l, "postgresql")...)
	}
}

func collectInstance(out *sink, in *postgres.Instance, host linux.Host, l []string) {
	out.gauge(descInfo, 1, with(l, in.Version, in.Settings.String("huge_pages"), strconv.FormatBool(in.Connected))...)
	collectRoles(out, in, l)
	clients := len(in.ByRole(postgres.RoleClient))
	out.gauge(descConnections, float64(clients), l...)
	maxConn, ok := in.Settings.Int("max_connections")
	if ok {
		out.gauge(descMaxConn, float64(maxConn), l...)
	}
	if in.Shared != nil {
		out.gauge(descShared, float64(in.Shared.SizeBytes), l...)
		out.gauge(descSharedPage, float64(in.Shared.PageSizeBytes), l...)
		if ok {
			proj := advise.PageTableBytes(int(maxConn), in.Shared.SizeBytes, in.Shared.PageSizeBytes)
			out.gauge(descPTEProj, float64(proj), l...)
		}
	}
	collectHugeNeed(out, in, host, l)
	collectWorstCase(out, in, host, l)
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

func collectRoles(out *sink, in *postgres.Instance, l []string) {
	sums := map[string]*roleSums{}
	for _, p := range in.Processes {
		r := sums[string(p.Role)]
		if r == nil {
			r = &roleSums{privateKnown: true, pteKnown: true}
			sums[string(p.Role)] = r
		}
		r.add(p)
	}
	for _, role := range slices.Sorted(maps.Keys(sums)) {
		r, rl := sums[role], with(l, role)
		out.gauge(descProcesses, float64(r.processes), rl...)
		if r.privateKnown {
			out.gauge(descPrivate, float64(r.private), rl...)
		}
		if r.pteKnown {
			out.gauge(descPTE, float64(r.vmpte), rl...)
		}
		if r.oomKnown {
			out.gauge(descOOMMax, float64(r.oomMax), rl...)
		}
	}
	if pm, ok := in.Postmaster(); ok && pm.OOMScoreAdj != nil {
		out.gauge(descOOMAdj, float64(*pm.OOMScoreAdj), l...)
	}
}

// LongLived is the age from which a process counts as long-lived.
const LongLived = 10 * time.Minute

// collectLongLived sums by role the private cost of the processes alive
// for LongLived or more (the postmaster left out): a series that new
// connections do not move, for predict_linear. Nothing is sent without
// the boot time (process ages unknown).
func collectLongLived(out *sink, in *postgres.Instance, boot, now time.Time, l []string) {
	if boot.IsZero() {
		return
	}
	sums, counts := map[string]uint64{}, map[string]int{}
	for _, p := range in.Processes {
		st := p.Status
		if p.Role == postgres.RolePostmaster || now.Sub(linux.Started(boot, p.StartTicks)) < LongLived ||
			st.RssAnonBytes == nil || st.VmPTEBytes == nil || st.VmSwapBytes == nil {
			continue
		}
		sums[string(p.Role)] += *st.RssAnonBytes + *st.VmPTEBytes + *st.VmSwapBytes
		counts[string(p.Role)]++
	}
	for _, role := range slices.Sorted(maps.Keys(sums)) {
		out.gauge(descLongLived, float64(sums[role]), with(l, role)...)
		out.gauge(descLongLivedN, float64(counts[role]), with(l, role)...)
	}
}

// collectHugeNeed: pages of the huge page size the instance asks for
// (huge_page_size, else the host default) that its segment needs.
func collectHugeNeed(out *sink, in *postgres.Instance, host linux.Host, l []string) {
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
	out.gauge(descHugeNeeded, float64(need), with(l, strconv.FormatUint(size, 10))...)
}

func collectWorstCase(out *sink, in *postgres.Instance, host linux.Host, l []string) {
	wc := advise.PostgresWorkload(in, advise.DefaultNodesPerQuery).WorstCase()
	// A part whose settings were not read is left out, never a default.
	for _, p := range []struct {
		part, label string
		v           uint64
	}{{"private", "private", wc.PrivateBytes}, {"page tables", "page_tables", wc.PageTablesBytes}, {"shared memory", "shared", wc.SharedBytes}} {
		if wc.Known(p.part) {
			out.gauge(descWorstCase, float64(p.v), with(l, p.label)...)
		}
	}
	collectLimits(out, host, in.Cgroup, l)
}

// collectLimits sends what an instance's worst case must fit.
func collectLimits(out *sink, host linux.Host, cg *linux.CgroupMemory, l []string) {
	if m := host.Meminfo.MemTotalBytes; m != nil {
		out.gauge(descLimit, float64(*m), with(l, "mem_total")...)
	}
	if mode, _ := host.Sysctls.Int("vm.overcommit_memory"); mode == 2 && host.Meminfo.CommitLimitBytes != nil {
		out.gauge(descLimit, float64(*host.Meminfo.CommitLimitBytes), with(l, "commit_limit")...)
	}
	if cg != nil && cg.LimitBytes != nil {
		out.gauge(descLimit, float64(*cg.LimitBytes), with(l, "cgroup")...)
	}
}

// pssByRole sums Pss_Anon + VmPTE + VmSwap by postmaster (or MySQL
// server) PID and role, for processes whose Pss_Anon was read; read and
// tried count those processes and all database processes.
func pssByRole(s *sampler.Sample) (out map[int]map[string]uint64, read, tried int) {
	out = map[int]map[string]uint64{}
	for _, in := range s.Snapshot.Postgres {
		m := map[string]uint64{}
		for _, p := range in.Processes {
			tried++
			if cost, exact, ok := p.PrivateCost(); exact && ok {
				m[string(p.Role)] += cost
				read++
			}
		}
		out[in.PostmasterPID] = m
	}
	for _, in := range s.Snapshot.MySQL {
		tried++
		if cost, exact, ok := in.Process.PrivateCost(); exact && ok {
			out[in.PID] = map[string]uint64{"": cost}
			read++
		}
	}
	return out, read, tried
}

// collectPss sends the last smaps pass's costs of an instance still
// running (nil m: none).
func collectPss(out *sink, m map[string]uint64, l []string) {
	for _, role := range slices.Sorted(maps.Keys(m)) {
		out.gauge(descPssPrivate, float64(m[role]), with(l, role)...)
	}
}
