package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

func checkCommitNearLimit(h host) []finding.Finding {
	const id = "overcommit.near_limit"
	mode, ok := h.Sysctls.Int("vm.overcommit_memory")
	m := h.Meminfo
	if !h.need(id, "host", have(inOvercommit, ok)) || mode != 2 ||
		!h.need(id, "host", known(inCommitted, m.CommittedASBytes), known(inCommitLimit, m.CommitLimitBytes)) || *m.CommitLimitBytes == 0 {
		return nil
	}
	committed, limit := *m.CommittedASBytes, *m.CommitLimitBytes
	r := share(committed, limit)
	sev := finding.Warning
	switch {
	case r >= CommitNearCritical:
		sev = finding.Critical
	case r < CommitNearWarning:
		return nil
	}
	return []finding.Finding{{
		ID: "overcommit.near_limit", Severity: sev, Subject: "host",
		Title: fmt.Sprintf("Committed_AS is %s of CommitLimit under strict overcommit", units.Percent(committed, limit)),
		Evidence: []finding.Evidence{
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

func checkTHP(h host) []finding.Finding {
	t := h.THP
	if !h.need("thp.enabled", "host", have("transparent_hugepage/enabled (/sys)", t.Enabled != "")) {
		return nil
	}
	engines := h.engines()
	v := decideTHP(engines, t.Enabled)
	if len(v.Unmet) == 0 {
		return nil
	}
	f := finding.Finding{ID: "thp.enabled", Subject: "host",
		Evidence: []finding.Evidence{
			ev("enabled", t.Enabled, srcTHP+"/enabled"), ev("defrag", t.Defrag, srcTHP+"/defrag"),
			ev("AnonHugePages", bytesOf(h.Meminfo.AnonHugePagesBytes), srcMeminfo),
			ev("engines here", engineNames(engines), "processes and servers found"),
		},
		Why: v.Why + "."}
	if v.Want == "" {
		f.Severity = finding.Info
		f.Title = fmt.Sprintf("transparent huge pages enabled=%s: %s %s, but %s %s: kept", t.Enabled,
			engineNames(v.Unmet), thpAdvises(v.Unmet, v.Unmet[0].THP().Want), engineNames(v.Against), againstText(v.Against))
		f.Why += ". The setting is host-wide: changing it for one engine degrades the other."
		f.Fix = "Keep the current value for " + engineNames(v.Against) + "; where that hurts, run the engines on separate hosts " +
			"(shared memory in the huge page pool is not affected by THP either way)."
		return []finding.Finding{f}
	}
	f.Severity = finding.Warning
	if v.Want == "always" {
		f.Severity = finding.Notice
	}
	if !h.databases() {
		f.Severity = finding.Info
	}
	f.Title = fmt.Sprintf("transparent huge pages enabled=%s: %s %s", t.Enabled, engineNames(v.Unmet), thpAdvises(v.Unmet, v.Want))
	f.Fix = fmt.Sprintf("Set transparent_hugepage/enabled to %s and defrag to %s, and keep it at boot (`dbmem plan` renders a systemd unit).", v.Want, v.Defrag)
	f.Settings = []finding.Setting{
		sysfsSetting("/sys/kernel/mm/transparent_hugepage/enabled", v.Want, t.Enabled, v.Why),
		sysfsSetting("/sys/kernel/mm/transparent_hugepage/defrag", v.Defrag, t.Defrag, v.Why),
	}
	return []finding.Finding{f}
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

func checkZoneReclaim(h host) []finding.Finding {
	z, ok := h.Sysctls.Int("vm.zone_reclaim_mode")
	if !ok || z == 0 {
		return nil
	}
	sev := finding.Notice
	if h.NUMANodes > 1 {
		sev = finding.Warning
	}
	return []finding.Finding{{
		ID: "numa.zone_reclaim", Severity: sev, Subject: "host",
		Title:    fmt.Sprintf("vm.zone_reclaim_mode=%d", z),
		Evidence: []finding.Evidence{ev("vm.zone_reclaim_mode", strconv.FormatInt(z, 10), srcSysctl), ev("NUMA nodes", strconv.Itoa(h.NUMANodes), "/sys/devices/system/node")},
		Why: "Zone reclaim drops the local node's page cache (and may swap) rather than use free memory on " +
			"another node: a database loses its cache while memory sits free.",
		Fix:      "Set vm.zone_reclaim_mode=0.",
		Settings: []finding.Setting{sysctlSetting("vm.zone_reclaim_mode", "0", strconv.FormatInt(z, 10), "0", "use remote memory before reclaiming local cache")},
	}}
}

func checkPageTablesNow(h host) []finding.Finding {
	m := h.Meminfo
	if !h.need("pagetables.now", "host", known(inPageTables, m.PageTablesBytes), known(inMemTotal, m.MemTotalBytes)) {
		return nil
	}
	pt := *m.PageTablesBytes
	sev, ok := pageTableSeverity(pt, h.RAM)
	if !ok {
		return nil
	}
	return []finding.Finding{{
		ID: "pagetables.now", Severity: sev, Subject: "host",
		Title:    fmt.Sprintf("page tables take %s (%s of RAM)", units.Bytes(pt), units.Percent(pt, h.RAM)),
		Evidence: []finding.Evidence{ev("PageTables", units.Bytes(pt), srcMeminfo), ev("MemTotal", units.Bytes(h.RAM), srcMeminfo)},
		Why: "Every process that touches shared memory through 4 KiB pages pays 2 MiB of page table per GiB " +
			"touched; this kernel memory is in nobody's RSS and is taken from the page cache.",
		Fix: "Put the databases' shared memory in huge pages (`dbmem plan`); fewer long-lived connections (a pooler) also help.",
	}}
}

// engines lists the database engines running here: the instances judged
// and the MySQL/MariaDB servers (of trusted accounts: THP is host-wide),
// and the co-hosted databases (Redis, MongoDB, Oracle); PostgreSQL for a
// host without any.
func (h host) engines() []Engine {
	var out []Engine
	for _, in := range h.Instances {
		if in.Untrusted == "" {
			out = append(out, in.Engine)
		}
	}
	out = append(out, softwareEngines(h.Software)...)
	if len(out) == 0 {
		out = append(out, Engine{Name: finding.EnginePostgres})
	}
	return out
}

// databases reports whether a database runs here: an instance, a
// MySQL/MariaDB server (of a trusted account), or co-hosted Redis,
// MongoDB or Oracle.
func (h host) databases() bool {
	for _, in := range h.Instances {
		if in.Untrusted == "" {
			return true
		}
	}
	return len(softwareEngines(h.Software)) > 0
}
