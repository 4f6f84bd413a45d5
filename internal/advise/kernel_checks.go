package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/units"
)

func checkOvercommitMode(h host) []Finding {
	mode, ok := h.Sysctls.Int("vm.overcommit_memory")
	if !h.need("overcommit.mode", "host", have(inOvercommit, ok)) || mode == 2 {
		return nil
	}
	sev := Notice
	if mode == 1 {
		sev = Warning
	}
	if !h.Dedicated {
		sev = Info
	}
	names := map[int64]string{0: "heuristic", 1: "always"}
	m := h.Meminfo
	return []Finding{{
		ID: "overcommit.mode", Severity: sev, Subject: "host",
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
	var out []Finding
	for _, e := range h.engines() {
		a := e.THP()
		if a.Accepts(t.Enabled) {
			continue
		}
		sev := Warning
		if a.Want == "always" {
			sev = Notice
		}
		if len(h.Instances)+len(h.Others) == 0 {
			sev = Info
		}
		out = append(out, Finding{
			ID: "thp.enabled", Severity: sev, Subject: "host",
			Title: fmt.Sprintf("transparent huge pages enabled=%s, %s advises %s", t.Enabled, e, a.Want),
			Evidence: []Evidence{
				ev("enabled", t.Enabled, srcTHP+"/enabled"), ev("defrag", t.Defrag, srcTHP+"/defrag"),
				ev("AnonHugePages", bytesOf(h.Meminfo.AnonHugePagesBytes), srcMeminfo),
			},
			Why: a.Why + ".",
			Fix: fmt.Sprintf("Set transparent_hugepage/enabled and defrag to %s, and keep it at boot (`dbmem plan` renders a systemd unit).", a.Want),
			Settings: []Setting{
				sysfsSetting("/sys/kernel/mm/transparent_hugepage/enabled", a.Want, t.Enabled, a.Why),
				sysfsSetting("/sys/kernel/mm/transparent_hugepage/defrag", a.Want, t.Defrag, a.Why),
			},
		})
		break // one finding: the engines disagreeing is not a host setting
	}
	return out
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

// engines lists the engines running here (PostgreSQL for a host without any).
func (h host) engines() []Engine {
	var out []Engine
	for _, in := range h.Instances {
		out = append(out, in.Engine)
	}
	out = append(out, h.Others...)
	if len(out) == 0 {
		out = append(out, Engine{Name: EnginePostgres})
	}
	return out
}
