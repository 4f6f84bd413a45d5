package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/units"
)

func checkOvercommitMode(h host) []Finding {
	mode, ok := h.Sysctls.Int("vm.overcommit_memory")
	if !h.need("overcommit.mode", "host", have(inOvercommit, ok)) {
		return nil
	}
	if h.Env.InContainer {
		return nodeSettings(h, mode)
	}
	cs := OvercommitConflicts(h.Software)
	if mode == 2 {
		return strictBreaks(h, cs)
	}
	names := map[int64]string{0: "heuristic", 1: "always"}
	m := h.Meminfo
	f := Finding{
		ID: "overcommit.mode", Severity: Notice, Subject: "host",
		Title: fmt.Sprintf("vm.overcommit_memory=%d (%s): a runaway query is OOM-killed instead of refused", mode, names[mode]),
		Evidence: []Evidence{
			ev("vm.overcommit_memory", strconv.FormatInt(mode, 10), srcSysctl),
			ev("Committed_AS", bytesOf(m.CommittedASBytes), srcMeminfo),
			ev("CommitLimit", bytesOf(m.CommitLimitBytes)+" (not enforced)", srcMeminfo),
		},
		Why: "Without strict accounting the kernel grants more memory than exists; when a backend touches it " +
			"the OOM killer sends SIGKILL and the postmaster restarts every session (crash recovery).",
		Fix: "On a dedicated database host set vm.overcommit_memory=2 with the vm.overcommit_ratio from `dbmem plan` " +
			"(never when Committed_AS exceeds the new CommitLimit, and not on Kubernetes nodes or hosts with JVMs).",
	}
	if mode == 1 {
		f.Severity = Warning
	}
	if !h.Dedicated {
		f.Severity = Info
	}
	if why, over := committedOverReserve(h); over && len(cs) == 0 {
		f.Severity = Info
		f.Title = fmt.Sprintf("vm.overcommit_memory=%d (%s): strict overcommit cannot be switched on now", mode, names[mode])
		f.Evidence = append(f.Evidence, ev("CommitLimit keeping the page-cache reserve", why, "computed"))
		f.Fix = "Bring what is committed down first (smaller buffers, fewer connections: a pooler); until then bound the databases " +
			"with a memory limit per service (systemd MemoryMax=) and OOMScoreAdjust for the processes that must survive."
	}
	if why, none := noRatio(h); none && len(cs) == 0 {
		f.Severity = Info
		f.Title = fmt.Sprintf("vm.overcommit_memory=%d (%s): no strict overcommit keeps the page-cache reserve here", mode, names[mode])
		f.Evidence = append(f.Evidence, ev("vm.overcommit_ratio", why, "computed"))
		f.Fix = "Bound the databases instead: a memory limit per service (systemd MemoryMax=), their own caps (PGA_AGGREGATE_LIMIT, " +
			"work_mem x max_connections within RAM), and OOMScoreAdjust for the processes that must survive."
	}
	if len(cs) > 0 {
		f.Severity = Info
		f.Title = fmt.Sprintf("vm.overcommit_memory=%d (%s): strict overcommit is not advised here, %s would break", mode, names[mode], conflictNames(cs))
		for _, c := range cs {
			f.Evidence = append(f.Evidence, ev(c.Software.String(), c.Why, softwareSource(c.Software)))
		}
		f.Why = "Strict accounting is host-wide: it would refuse what this software needs. Without it a runaway query is " +
			"OOM-killed instead of refused, so the databases must be bounded another way."
		f.Fix = overcommitAlternative(cs)
	}
	return []Finding{f}
}

// noRatio reports that swap and the huge page pools now take so much of
// RAM that no vm.overcommit_ratio keeps DefaultReserve for the page cache
// (an Oracle host with 82% of RAM in its SGA's pool), with the arithmetic.
func noRatio(h host) (string, bool) {
	m := h.Meminfo
	if m.MemTotalBytes == nil || m.SwapTotalBytes == nil {
		return "", false
	}
	var pools uint64
	for _, p := range h.HugePools {
		if p.Node < 0 {
			pools += p.Bytes()
		}
	}
	_, formula, ok := OvercommitRatio(h.RAM, *m.SwapTotalBytes, pools, DefaultReserve)
	return formula, !ok
}

// committedOverReserve reports that Committed_AS is already above the
// CommitLimit the page-cache reserve allows (with the pools now): mode 2
// would make fork and malloc fail at once, as plan says.
func committedOverReserve(h host) (string, bool) {
	m := h.Meminfo
	if m.MemTotalBytes == nil || m.SwapTotalBytes == nil || m.CommittedASBytes == nil {
		return "", false
	}
	pools, _ := h.poolsNow()
	ratio, _, ok := OvercommitRatio(h.RAM, *m.SwapTotalBytes, pools, DefaultReserve)
	if !ok {
		return "", false
	}
	limit := CommitLimit(h.RAM, *m.SwapTotalBytes, pools, ratio)
	return fmt.Sprintf("%s at ratio %d, under Committed_AS %s: switching to mode 2 would make fork and malloc fail",
		units.Bytes(limit), ratio, units.Bytes(*m.CommittedASBytes)), *m.CommittedASBytes > limit
}

// strictBreaks flags strict overcommit on a host where Redis runs: its
// background save forks the dataset and fails. (JVMs and Erlang VMs that
// already run got their reservations.)
func strictBreaks(h host, cs []Conflict) []Finding {
	for _, c := range cs {
		if c.Software.Kind != cohost.Redis {
			continue
		}
		return []Finding{{ID: "overcommit.mode", Severity: Warning, Subject: "host",
			Title:    "vm.overcommit_memory=2 with " + c.Software.String() + ": its background save fails",
			Evidence: []Evidence{ev("vm.overcommit_memory", "2", srcSysctl), ev(c.Software.String(), c.Why, softwareSource(c.Software))},
			Why:      "Redis forks to save (BGSAVE, AOF rewrite); the child is charged the whole dataset under strict accounting, so the fork fails and nothing is saved.",
			Fix: "Set vm.overcommit_memory=1 as Redis asks (or move Redis to another host), and bound the databases instead: " +
				"OOMScoreAdjust=-1000 for the postmaster, a memory limit per service (systemd MemoryMax=), work_mem x max_connections within RAM.",
		}}
	}
	return nil
}

// nodeSettings is said once inside a container: the kernel's settings and
// the huge page pool belong to the node (/proc/sys is read-only in a pod).
func nodeSettings(h host, mode int64) []Finding {
	pool := "none"
	if p, ok := h.DefaultPool(); ok {
		pool = poolText(p)
	}
	return []Finding{{ID: "overcommit.mode", Severity: Info, Subject: "host",
		Title: "dbmem runs in a container: overcommit, swappiness, THP and the huge page pool are the node's settings",
		Evidence: []Evidence{
			ev("vm.overcommit_memory", strconv.FormatInt(mode, 10), srcSysctl+" (the node's)"),
			ev("/proc/sys read-only", strconv.FormatBool(h.Env.SysctlsReadOnly), "/proc/self/mountinfo"),
			ev("huge page pool (the node's)", pool, srcPools),
		},
		Why: "A container shares the node's kernel: these settings apply to every pod and are set on the node (kubelet owns " +
			"vm.overcommit_memory there). The pod's own bounds are its cgroup limits: memory.max and hugetlb.<size>.max.",
		Fix: "Judge the pod by its limits (the container findings); change kernel settings on the node, for every pod.",
	}}
}
func checkCommitNearLimit(h host) []Finding {
	const id = "overcommit.near_limit"
	mode, ok := h.Sysctls.Int("vm.overcommit_memory")
	m := h.Meminfo
	if !h.need(id, "host", have(inOvercommit, ok)) || mode != 2 ||
		!h.need(id, "host", known(inCommitted, m.CommittedASBytes), known(inCommitLimit, m.CommitLimitBytes)) || *m.CommitLimitBytes == 0 {
		return nil
	}
	committed, limit := *m.CommittedASBytes, *m.CommitLimitBytes
	r := share(committed, limit)
	sev := Warning
	switch {
	case r >= CommitNearCritical:
		sev = Critical
	case r < CommitNearWarning:
		return nil
	}
	return []Finding{{
		ID: "overcommit.near_limit", Severity: sev, Subject: "host",
		Title: fmt.Sprintf("Committed_AS is %s of CommitLimit under strict overcommit", units.Percent(committed, limit)),
		Evidence: []Evidence{
			ev("Committed_AS", units.Bytes(committed), srcMeminfo),
			ev("CommitLimit", units.Bytes(limit), srcMeminfo),
			ev("vm.overcommit_ratio", h.Sysctls["vm.overcommit_ratio"], srcSysctl),
		},
		Why: "Past CommitLimit every malloc and fork fails: new connections and queries get " +
			"\"out of memory\", and shell logins fail with \"fork: Cannot allocate memory\".",
		Fix: "Find what reserved the memory (new connections, a shared segment in 4 KiB pages counts in full); " +
			"raise vm.overcommit_ratio only if RAM really remains for the page cache (`dbmem plan`).",
	}}
}

func checkTHP(h host) []Finding {
	t := h.THP
	if !h.need("thp.enabled", "host", have("transparent_hugepage/enabled (/sys)", t.Enabled != "")) {
		return nil
	}
	engines := h.engines()
	v := decideTHP(engines, t.Enabled)
	if len(v.Unmet) == 0 {
		return nil
	}
	f := Finding{ID: "thp.enabled", Subject: "host",
		Evidence: []Evidence{
			ev("enabled", t.Enabled, srcTHP+"/enabled"), ev("defrag", t.Defrag, srcTHP+"/defrag"),
			ev("AnonHugePages", bytesOf(h.Meminfo.AnonHugePagesBytes), srcMeminfo),
			ev("engines here", engineNames(engines), "processes and servers found"),
		},
		Why: v.Why + "."}
	if v.Want == "" {
		f.Severity = Info
		f.Title = fmt.Sprintf("transparent huge pages enabled=%s: %s %s, but %s %s: kept", t.Enabled,
			engineNames(v.Unmet), thpAdvises(v.Unmet, v.Unmet[0].THP().Want), engineNames(v.Against), againstText(v.Against))
		f.Why += ". The setting is host-wide: changing it for one engine degrades the other."
		f.Fix = "Keep the current value for " + engineNames(v.Against) + "; where that hurts, run the engines on separate hosts " +
			"(shared memory in the huge page pool is not affected by THP either way)."
		return []Finding{f}
	}
	f.Severity = Warning
	if v.Want == "always" {
		f.Severity = Notice
	}
	if !h.databases() {
		f.Severity = Info
	}
	f.Title = fmt.Sprintf("transparent huge pages enabled=%s: %s %s", t.Enabled, engineNames(v.Unmet), thpAdvises(v.Unmet, v.Want))
	f.Fix = fmt.Sprintf("Set transparent_hugepage/enabled to %s and defrag to %s, and keep it at boot (`dbmem plan` renders a systemd unit).", v.Want, v.Defrag)
	f.Settings = []Setting{
		sysfsSetting("/sys/kernel/mm/transparent_hugepage/enabled", v.Want, t.Enabled, v.Why),
		sysfsSetting("/sys/kernel/mm/transparent_hugepage/defrag", v.Defrag, t.Defrag, v.Why),
	}
	return []Finding{f}
}

// againstText says why engines block a THP change.
func againstText(es []Engine) string {
	for _, e := range es {
		if e.THP().Want == "" {
			return "has an advice that depends on its version, not read"
		}
	}
	return thpAdvises(es, es[0].THP().Want)
}

func checkZoneReclaim(h host) []Finding {
	z, ok := h.Sysctls.Int("vm.zone_reclaim_mode")
	if !ok || z == 0 {
		return nil
	}
	sev := Notice
	if h.NUMANodes > 1 {
		sev = Warning
	}
	return []Finding{{
		ID: "numa.zone_reclaim", Severity: sev, Subject: "host",
		Title:    fmt.Sprintf("vm.zone_reclaim_mode=%d", z),
		Evidence: []Evidence{ev("vm.zone_reclaim_mode", strconv.FormatInt(z, 10), srcSysctl), ev("NUMA nodes", strconv.Itoa(h.NUMANodes), "/sys/devices/system/node")},
		Why: "Zone reclaim drops the local node's page cache (and may swap) rather than use free memory on " +
			"another node: a database loses its cache while memory sits free.",
		Fix:      "Set vm.zone_reclaim_mode=0.",
		Settings: []Setting{sysctlSetting("vm.zone_reclaim_mode", "0", strconv.FormatInt(z, 10), "0", "use remote memory before reclaiming local cache")},
	}}
}

func checkPageTablesNow(h host) []Finding {
	m := h.Meminfo
	if !h.need("pagetables.now", "host", known(inPageTables, m.PageTablesBytes), known(inMemTotal, m.MemTotalBytes)) {
		return nil
	}
	pt := *m.PageTablesBytes
	sev, ok := pageTableSeverity(pt, h.RAM)
	if !ok {
		return nil
	}
	return []Finding{{
		ID: "pagetables.now", Severity: sev, Subject: "host",
		Title:    fmt.Sprintf("page tables take %s (%s of RAM)", units.Bytes(pt), units.Percent(pt, h.RAM)),
		Evidence: []Evidence{ev("PageTables", units.Bytes(pt), srcMeminfo), ev("MemTotal", units.Bytes(h.RAM), srcMeminfo)},
		Why: "Every process that touches shared memory through 4 KiB pages pays 2 MiB of page table per GiB " +
			"touched; this kernel memory is in nobody's RSS and is taken from the page cache.",
		Fix: "Put the databases' shared memory in huge pages (`dbmem plan`); fewer long-lived connections (a pooler) also help.",
	}}
}

// engines lists the database engines running here: the instances judged,
// the MySQL/MariaDB servers, and the co-hosted databases (Redis, MongoDB,
// Oracle); PostgreSQL for a host without any.
func (h host) engines() []Engine {
	var out []Engine
	for _, in := range h.Instances {
		out = append(out, in.Engine)
	}
	out = append(out, h.Others...)
	out = append(out, softwareEngines(h.Software)...)
	if len(out) == 0 {
		out = append(out, Engine{Name: EnginePostgres})
	}
	return out
}

// databases reports whether a database runs here: an instance, a
// MySQL/MariaDB server, or co-hosted Redis, MongoDB or Oracle.
func (h host) databases() bool {
	return len(h.Instances)+len(h.Others)+len(softwareEngines(h.Software)) > 0
}
