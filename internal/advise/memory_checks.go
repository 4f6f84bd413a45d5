package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// checkPageTablesProjected projects page tables at max_connections when
// every connection touches all of the shared segment.
func checkPageTablesProjected(h host, in instance) []finding.Finding {
	if in.words.oneProcess || in.words.noSettings {
		return nil // one process maps it once: its page tables are in the worst case
	}
	shared, page := in.Work.SharedBytes, in.Work.SharedPageBytes
	ins := append([]input{known(inMemTotal, h.Meminfo.MemTotalBytes)}, in.Work.inputs("max_connections", "shared_buffers", UnknownPageSize)...)
	if !h.need("pagetables.projected", in.Subject, ins...) {
		return nil
	}
	pt := PageTableBytes(in.Work.MaxConnections, shared, page)
	sev, ok := pageTableSeverity(pt, h.RAM)
	if !ok {
		return nil
	}
	vmpte := Unknown
	if v, ok := sumVmPTE(in.Procs); ok {
		vmpte = units.Bytes(v)
	}
	return []finding.Finding{{
		ID: "pagetables.projected", Severity: sev, Subject: in.Subject,
		Title: fmt.Sprintf("page tables can reach %s (%s of RAM) at max_connections=%d", units.Bytes(pt), units.Percent(pt, h.RAM), in.Work.MaxConnections),
		Evidence: []finding.Evidence{
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
func checkWorstCase(h host, in instance) []finding.Finding {
	w, wc := in.words, in.Worst
	if w.noSettings {
		return nil
	}
	ins := []input{known(inMemTotal, h.Meminfo.MemTotalBytes), worstCaseInput(wc)}
	if in.Engine.Name != finding.EnginePostgres {
		ins = append(ins, have(inSettings, in.SettingsKnown)) // its worst case is computed on settings read or none
	}
	if !h.need(w.worstID, in.Subject, ins...) {
		return nil
	}
	if w.worstFloor > 0 && (h.RAM == 0 || share(wc.TotalBytes, h.RAM) < w.worstFloor) {
		return nil
	}
	f := finding.Finding{ID: w.worstID, Severity: finding.Info, Subject: in.Subject, Title: worstTitle(wc, h.RAM), Why: w.worstWhy, Fix: w.worstFix(h)}
	if w.worstFloor > 0 {
		f.Severity = finding.Notice
	}
	f.Evidence = worstEvidence(wc)
	for _, l := range wc.Skipped {
		f.Evidence = append(f.Evidence, ev(l.Name, Unknown+": not computed, "+strings.Join(l.Missing, ", ")+" not read", "not read"))
	}
	f.Evidence = append(f.Evidence, ev("MemTotal", units.Bytes(h.RAM), srcMeminfo))
	if wc.TotalBytes > h.RAM || w.worstFloor > 0 && wc.TotalBytes == h.RAM {
		f.Severity = finding.Warning
		f.Stake(wc.TotalBytes-h.RAM, fmt.Sprintf("worst case beyond RAM: %s - %s MemTotal", units.Bytes(wc.TotalBytes), units.Bytes(h.RAM)))
	}
	if cg := in.Cgroup; cg != nil && cg.LimitBytes != nil {
		inCg := wc.PrivateBytes + wc.PageTablesBytes
		if in.Shared == nil || !in.Shared.Hugetlb {
			inCg += wc.SharedBytes // hugetlb is charged to the hugetlb controller, not memory
		}
		f.Evidence = append(f.Evidence, ev("cgroup memory limit", units.Bytes(*cg.LimitBytes)+" at "+cg.LimitPath, "cgroup"))
		if inCg > *cg.LimitBytes {
			f.Severity = finding.Warning
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
	return []finding.Finding{f}
}

// worstTitle sums the worst case up against the RAM.
func worstTitle(wc WorstCase, ram uint64) string {
	if n := len(wc.Skipped); n > 0 {
		return fmt.Sprintf("worst case at least %s (%s of RAM), %d of its lines not computed (inputs not read): %s",
			units.Bytes(wc.TotalBytes), units.Percent(wc.TotalBytes, ram), n, worstSum(wc))
	}
	return fmt.Sprintf("worst case %s (%s of RAM): %s", units.Bytes(wc.TotalBytes), units.Percent(wc.TotalBytes, ram), worstSum(wc))
}

// worstSum gives the worst case's terms: per connection where the engine
// counts its connections' buffers so (MySQL), else private, page tables
// and shared memory.
func worstSum(wc WorstCase) string {
	if len(wc.PerConnection) > 0 {
		return fmt.Sprintf("global %s + %d max_connections x %s per thread", units.Bytes(wc.Sum(enginemem.Global, enginemem.InHugePages)),
			wc.MaxConnections, units.Bytes(wc.Sum(enginemem.PerConnection)))
	}
	part := func(name string, b uint64) string {
		if !wc.Known(name) {
			return Unknown
		}
		return units.Bytes(b)
	}
	return fmt.Sprintf("%s private + %s page tables + %s shared",
		part("private", wc.PrivateBytes), part("page tables", wc.PageTablesBytes), part("shared memory", wc.SharedBytes))
}

// worstEvidence quotes every line, the terms of one connection and what
// could not be measured (unknown, never 0).
func worstEvidence(wc WorstCase) []finding.Evidence {
	var out []finding.Evidence
	for _, l := range wc.PerConnection {
		out = append(out, ev("per connection: "+l.Name, units.Bytes(l.Bytes)+" = "+l.Formula, "settings"))
	}
	for _, l := range wc.Lines {
		v := units.Bytes(l.Bytes) + " = " + l.Formula
		if !wc.Measured(l.Name) {
			v = Unknown + ": " + l.Formula
		}
		out = append(out, ev(l.Name, v, "settings"))
	}
	return out
}

// checkCacheShare flags a main cache taking too much of RAM.
func checkCacheShare(h host, in instance) []finding.Finding {
	if in.words.ownCacheCheck != "" || in.words.noSettings {
		return nil // the engine's own sizing rule judges it
	}
	ins := append([]input{known(inMemTotal, h.Meminfo.MemTotalBytes)}, in.Work.inputs("shared_buffers")...)
	if !h.need("memory.cache_share", in.Subject, ins...) {
		return nil
	}
	s := share(in.CacheBytes, h.RAM)
	sev := finding.Notice
	switch {
	case s > CacheWarning:
		sev = finding.Warning
	case s <= CacheNotice:
		return nil
	}
	above := in.CacheBytes - uint64(CacheNotice*float64(h.RAM))
	return []finding.Finding{{
		BytesAtStake: &above, StakeFormula: fmt.Sprintf("beyond %.0f%% of RAM: %s - %.0f%% x %s", CacheNotice*100, units.Bytes(in.CacheBytes), CacheNotice*100, units.Bytes(h.RAM)),
		ID: "memory.cache_share", Severity: sev, Subject: in.Subject,
		Title:    fmt.Sprintf("%s is %s of RAM", in.SharedBuffers.Name, units.Percent(in.CacheBytes, h.RAM)),
		Evidence: []finding.Evidence{in.SharedBuffers, ev("MemTotal", units.Bytes(h.RAM), srcMeminfo)},
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

// worstCaseInput is known when at least one line was computed; when none
// was, it names every input that was missing.
func worstCaseInput(wc WorstCase) input {
	if len(wc.Lines) > 0 {
		return have("", true)
	}
	var names []string
	for _, l := range wc.Skipped {
		for _, m := range l.Missing {
			if !slices.Contains(names, m) {
				names = append(names, m)
			}
		}
	}
	return have(settingNames(names), false)
}

// inputs is the named inputs of the workload as one input: known when
// every one was read, else naming those that were not.
func (w Workload) inputs(names ...string) []input {
	var missing []string
	for _, n := range names {
		if w.unknown(n) {
			missing = append(missing, n)
		}
	}
	return []input{have(settingNames(missing), len(missing) == 0)}
}

// settingNames names settings as a skipped check lists its inputs.
func settingNames(names []string) string {
	var s []string
	for _, n := range names {
		if n != UnknownPageSize {
			s = append(s, n)
		}
	}
	out := strings.Join(s, ", ")
	if out != "" {
		out += " (" + inSettings + ")"
	}
	if slices.Contains(names, UnknownPageSize) {
		out = strings.TrimPrefix(out+"; "+UnknownPageSize, "; ")
	}
	return out
}

// projectedPageTables is the page tables at max_connections, unknown when
// max_connections was not read.
func projectedPageTables(in instance, sh *segment, page uint64) finding.Evidence {
	if in.Work.unknown("max_connections") {
		return ev("projected page tables", Unknown+": max_connections not read", "not read")
	}
	pt := PageTableBytes(in.Work.MaxConnections, sh.Bytes, page)
	return ev("projected page tables", fmt.Sprintf("%s at max_connections (%d x %s / %s pages x 8 B)", units.Bytes(pt), in.Work.MaxConnections,
		units.Bytes(sh.Bytes), units.Bytes(page)), "computed")
}
