package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// checkPageTablesProjected projects page tables at max_connections when
// every connection touches all of the shared segment.
func checkPageTablesProjected(h host, in instance) []Finding {
	shared, page := in.Work.SharedBytes, in.Work.SharedPageBytes
	if page == 0 {
		page = basePage
	}
	pt := PageTableBytes(in.Work.MaxConnections, shared, page)
	if !h.need("pagetables.projected", in.Subject, known(inMemTotal, h.Meminfo.MemTotalBytes), have(inSettings, in.SettingsKnown)) {
		return nil
	}
	sev, ok := pageTableSeverity(pt, h.RAM)
	if !ok {
		return nil
	}
	vmpte := Unknown
	if v, ok := sumVmPTE(in.Procs); ok {
		vmpte = units.Bytes(v)
	}
	return []Finding{{
		ID: "pagetables.projected", Severity: sev, Subject: in.Subject,
		Title: fmt.Sprintf("page tables can reach %s (%s of RAM) at max_connections=%d", units.Bytes(pt), units.Percent(pt, h.RAM), in.Work.MaxConnections),
		Evidence: []Evidence{
			ev("projection", fmt.Sprintf("%d connections x %s shared / %s pages x 8 B = %s", in.Work.MaxConnections, units.Bytes(shared), units.Bytes(page), units.Bytes(pt)), "computed"),
			ev("VmPTE of the instance now", vmpte, "/proc/PID/status"),
			ev("PageTables now", bytesOf(h.Meminfo.PageTablesBytes), srcMeminfo),
			ev("MemTotal", units.Bytes(h.RAM), srcMeminfo),
		},
		Why: "Long-lived connections end up touching most of the shared buffers; each then holds its own page table " +
			"for them, kernel memory outside every RSS and Committed_AS (field report: 25 GB for 80 connections on 192 GB).",
		Fix:          "Put the shared memory in huge pages (2 MiB pages cut this 512-fold) with `dbmem plan`; a connection pooler also caps it.",
		BytesAtStake: &pt, StakeFormula: pageTableFormula(in.Work.MaxConnections, shared, page, pt),
	}}
}

// pageTableFormula is the projection's arithmetic, as bytes at stake.
func pageTableFormula(conns int, shared, page, pt uint64) string {
	return fmt.Sprintf("page tables at max_connections: %d x %s / %s pages x 8 B = %s", conns, units.Bytes(shared), units.Bytes(page), units.Bytes(pt))
}

// checkWorstCase adds up what every connection could take at once and sets
// it against RAM, the cgroup limit and CommitLimit.
func checkWorstCase(h host, in instance) []Finding {
	if !h.need("memory.worst_case", in.Subject, known(inMemTotal, h.Meminfo.MemTotalBytes), have(inSettings, in.SettingsKnown)) {
		return nil
	}
	wc := in.Work.WorstCase()
	f := Finding{
		ID: "memory.worst_case", Severity: Info, Subject: in.Subject,
		Title: fmt.Sprintf("worst case %s (%s of RAM): %s private + %s page tables + %s shared",
			units.Bytes(wc.TotalBytes), units.Percent(wc.TotalBytes, h.RAM), units.Bytes(wc.PrivateBytes), units.Bytes(wc.PageTablesBytes), units.Bytes(wc.SharedBytes)),
		Why: "PostgreSQL caps no total: every sort or hash node of every query may take work_mem x hash_mem_multiplier, " +
			"so a burst of heavy queries can exceed RAM, and the kernel then kills one backend and the postmaster restarts all of them.",
		Fix: "Lower work_mem or max_connections (a pooler), or " + h.boundMemory() + ".",
	}
	for _, l := range wc.Lines {
		f.Evidence = append(f.Evidence, ev(l.Name, units.Bytes(l.Bytes)+" = "+l.Formula, "settings"))
	}
	f.Evidence = append(f.Evidence, ev("MemTotal", units.Bytes(h.RAM), srcMeminfo))
	if wc.TotalBytes > h.RAM {
		f.Severity = Warning
		f.stake(wc.TotalBytes-h.RAM, fmt.Sprintf("worst case beyond RAM: %s - %s MemTotal", units.Bytes(wc.TotalBytes), units.Bytes(h.RAM)))
	}
	if cg := in.Cgroup; cg != nil && cg.LimitBytes != nil {
		inCg := wc.PrivateBytes + wc.PageTablesBytes
		if in.Shared == nil || !in.Shared.Hugetlb {
			inCg += wc.SharedBytes // hugetlb is charged to the hugetlb controller, not memory
		}
		f.Evidence = append(f.Evidence, ev("cgroup memory limit", units.Bytes(*cg.LimitBytes)+" at "+cg.LimitPath, "cgroup"))
		if inCg > *cg.LimitBytes {
			f.Severity = Warning
			f.Title += fmt.Sprintf("; exceeds the cgroup limit %s", units.Bytes(*cg.LimitBytes))
		}
	}
	if mode, _ := h.Sysctls.Int("vm.overcommit_memory"); mode == 2 {
		cl := h.Meminfo.CommitLimitBytes
		f.Evidence = append(f.Evidence, ev("CommitLimit (enforced)", bytesOf(cl), srcMeminfo))
		if cl != nil && wc.PrivateBytes > *cl {
			f.Why += " Strict overcommit is on: past CommitLimit queries get \"ERROR: out of memory\" and the instance stays up."
		}
	}
	return []Finding{f}
}

// checkCacheShare flags a main cache taking too much of RAM.
func checkCacheShare(h host, in instance) []Finding {
	if !h.need("memory.cache_share", in.Subject, known(inMemTotal, h.Meminfo.MemTotalBytes), have(inSettings, in.SettingsKnown)) {
		return nil
	}
	s := share(in.CacheBytes, h.RAM)
	sev := Notice
	switch {
	case s > CacheWarning:
		sev = Warning
	case s <= CacheNotice:
		return nil
	}
	above := in.CacheBytes - uint64(CacheNotice*float64(h.RAM))
	return []Finding{{
		BytesAtStake: &above, StakeFormula: fmt.Sprintf("beyond %.0f%% of RAM: %s - %.0f%% x %s", CacheNotice*100, units.Bytes(in.CacheBytes), CacheNotice*100, units.Bytes(h.RAM)),
		ID: "memory.cache_share", Severity: sev, Subject: in.Subject,
		Title:    fmt.Sprintf("%s is %s of RAM", in.SharedBuffers.Name, units.Percent(in.CacheBytes, h.RAM)),
		Evidence: []Evidence{in.SharedBuffers, ev("MemTotal", units.Bytes(h.RAM), srcMeminfo)},
		Why: "What the cache takes is missing for sorts, hashes, connections and the kernel's page cache, which " +
			"PostgreSQL relies on too (double buffering); past half of RAM there is little left when queries peak.",
		Fix: "Keep shared_buffers near 25% of RAM (up to 40% for a cache-friendly workload) unless measurements say otherwise.",
	}}
}

// sumVmPTE adds the processes' page tables; ok is false when one of them
// has no VmPTE line.
func sumVmPTE(ps []labeled) (uint64, bool) {
	var v uint64
	for _, p := range ps {
		if p.Status.VmPTEBytes == nil {
			return 0, false
		}
		v += *p.Status.VmPTEBytes
	}
	return v, true
}
