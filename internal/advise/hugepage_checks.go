package advise

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// checkHugePagesUsed flags a main segment in base pages: huge pages off, or
// asked for and silently fallen back, with the cause when the pool is not
// it (the page size asked for, the cgroup's hugetlb limit). It reads the
// mapping, so it works on every version (huge_pages_status only exists
// from PostgreSQL 17).
func checkHugePagesUsed(h host, in instance) []finding.Finding {
	sh := in.Shared
	if !h.need(in.words.hugeSkipName, in.Subject, have(in.words.sharedWhat, sh != nil)) || sh.Hugetlb {
		return nil
	}
	if in.my != nil {
		return checkLargePages(h, in)
	}
	if in.sv != nil {
		return checkSysVPages(h, in)
	}
	page := max(sh.PageSize, basePage)
	pt := PageTableBytes(in.Work.MaxConnections, sh.Bytes, page) // 0 when max_connections was not read: no grade from it
	f := finding.Finding{Subject: in.Subject, Evidence: []finding.Evidence{
		ev("main shared mapping", fmt.Sprintf("%s %q in %s pages", units.Bytes(sh.Bytes), sh.Path, units.Bytes(page)), srcSmaps),
		in.HugeSetting, projectedPageTables(in, sh, page),
	}}
	if p, ok := h.DefaultPool(); ok {
		f.Evidence = append(f.Evidence, ev("huge page pool", poolText(p), poolSource(p)))
	}
	cause, caused := fallbackCause{}, false
	if in.WantsHuge {
		cause, caused = causeOfFallback(h, in)
		f.ID, f.Severity = "hugepages.fallback", finding.Notice
		f.Title = fmt.Sprintf("%s=%s but the shared memory is in %s pages: it fell back", in.HugeSetting.Name, in.HugeSetting.Value, units.Bytes(page))
		f.Why = "With huge_pages=try the server starts in base pages when it cannot get huge pages, and says so only at DEBUG level: " +
			"every backend then pays 8 bytes of page table per base page of shared memory it touches, and RssShmem makes the checkpointer an OOM victim."
	} else {
		f.ID, f.Severity = "hugepages.off", finding.Info
		if sh.Bytes >= HugePagesWorthBytes {
			f.Severity = finding.Notice
		}
		f.Title = fmt.Sprintf("shared memory (%s) in %s pages: %s=%s", units.Bytes(sh.Bytes), units.Bytes(page), in.HugeSetting.Name, in.HugeSetting.Value)
		f.Why = "Each process that touches the shared memory pays 8 bytes of page table per base page (2 MiB per GiB with 4 KiB pages), " +
			"and the pages count in its RSS, which makes background processes likely OOM victims; huge pages avoid both."
	}
	f.Severity = max(f.Severity, min(pageTableGrade(h, in, pt), finding.Warning))
	if in.SettingsKnown && in.Work.MaxConnections > 0 {
		f.Stake(pt, pageTableFormula(in.Work.MaxConnections, sh.Bytes, page, pt))
	}
	if caused {
		f.Title += ": " + cause.What
		f.Evidence = append(f.Evidence, cause.Evidence...)
		f.Fix = cause.Fix
		return []finding.Finding{f}
	}
	f.Fix = fmt.Sprintf("Reserve the pool and require it: vm.nr_hugepages covering %s, huge_pages=on, then restart (`dbmem plan`).", needText(in))
	if s, ok := poolSetting(h, in); ok {
		f.Settings = append(f.Settings, s)
	} else if in.Untrusted != "" {
		f.Evidence = append(f.Evidence, leftOutEvidence(in))
	}
	return []finding.Finding{f}
}

// pageTableGrade grades projected page tables against RAM, and against
// the instance's cgroup memory limit when it has one (page tables are
// charged to the cgroup): Info when they are too small to mention.
func pageTableGrade(h host, in instance, pt uint64) finding.Severity {
	sev, ok := pageTableSeverity(pt, h.RAM)
	if !ok {
		sev = finding.Info
	}
	if cg := in.Cgroup; cg != nil && cg.LimitBytes != nil {
		if s, ok := pageTableSeverity(pt, *cg.LimitBytes); ok {
			sev = max(sev, s)
		}
	}
	return sev
}

// checkPoolTooSmall flags an instance that asks for huge pages while the
// pool cannot hold it.
func checkPoolTooSmall(h host, in instance) []finding.Finding {
	const id = "hugepages.pool_too_small"
	if h.Env.InContainer || !in.WantsHuge || in.Shared == nil || in.Shared.Hugetlb || in.NeedPages == 0 {
		return nil
	}
	_, sized := h.DefaultPageSize()
	p, ok := h.DefaultPool()
	if !h.need(id, in.Subject, have(inHugeSize, sized)) || !ok {
		return nil
	}
	avail := units.Sub(p.Total, hostInUse(p))
	if _, other := causeOfFallback(h, in); avail >= in.NeedPages || other {
		return nil
	}
	if !h.need(id, in.Subject, known("nr_overcommit_hugepages (/sys/kernel/mm/hugepages)", p.Overcommit)) {
		return nil
	}
	reserved := avail // taken from RAM, yet too few for the segment
	if avail += units.Sub(*p.Overcommit, p.Surplus); avail >= in.NeedPages || p.Total+*p.Overcommit == 0 {
		return nil
	}
	f := finding.Finding{
		ID: "hugepages.pool_too_small", Severity: finding.Warning, Subject: in.Subject,
		Title: fmt.Sprintf("huge page pool has %d pages available, the instance needs %d", avail, in.NeedPages),
		Evidence: []finding.Evidence{
			ev("huge page pool", poolText(p), poolSource(p)),
			ev("pages needed", strconv.FormatUint(in.NeedPages, 10), in.NeedSource),
			in.HugeSetting,
		},
		Why: "The pool is reserved (taken from RAM) yet too small for the segment, so the server runs in 4 KiB pages " +
			"and the pool is wasted; with huge_pages=on the next restart fails.",
		Fix: "Grow vm.nr_hugepages to the need plus what others use (`dbmem plan`).",
	}
	if reserved > 0 {
		f.Stake(reserved*p.PageSizeBytes, fmt.Sprintf("%d free pages of the pool x %s, reserved and unused", reserved, units.Bytes(p.PageSizeBytes)))
	}
	if s, ok := poolSetting(h, in); ok {
		f.Settings = []finding.Setting{s}
	} else if in.Untrusted != "" {
		f.Evidence = append(f.Evidence, leftOutEvidence(in))
	}
	return []finding.Finding{f}
}

// checkPoolUse flags pools reserved but unused, or much larger than used.
// Without MemTotal the waste is still said, at most as a notice (its share
// of RAM, which makes a warning, is unknown).
func checkPoolUse(h host) []finding.Finding {
	m := h.Meminfo
	if h.Env.InContainer {
		return nil // the node's pool (nodeSettings says so once)
	}
	if _, sized := h.DefaultPageSize(); !sized && m.HugePagesTotal != nil && *m.HugePagesTotal > 0 && !hasHostPools(h) {
		h.need("hugepages.pool_use", "host", have(inHugeSize, false)) // a pool of an unknown page size
		return nil
	}
	var out []finding.Finding
	waiting := h.waitingForHuge()
	for _, p := range h.HugePools {
		if p.Node >= 0 || p.Total == 0 || waiting != "" {
			continue // a pool meant for an instance that fell back: its finding says what to do with it
		}
		used := hostInUse(p)
		spare := units.Sub(p.Total, used)
		wasted := spare * p.PageSizeBytes
		f := finding.Finding{Subject: "host", Evidence: []finding.Evidence{ev("huge page pool", poolText(p), poolSource(p)), ev("MemTotal", bytesOf(m.MemTotalBytes), srcMeminfo)},
			Why: "Pages in a hugetlb pool are taken from RAM for everyone: neither the page cache nor any process " +
				"can use them unless it maps hugetlbfs (unless a stopped instance will need them).",
			Fix: "Size vm.nr_hugepages to the need with `dbmem plan`, or use vm.nr_overcommit_hugepages for a pool that is taken only when used."}
		switch {
		case used == 0:
			f.ID, f.Title = "hugepages.pool_unused", fmt.Sprintf("%d huge pages of %s (%s) reserved and unused", p.Total, units.Bytes(p.PageSizeBytes), units.Bytes(wasted))
		case spare > uint64(PoolSlack*float64(p.Total)):
			f.ID, f.Title = "hugepages.pool_oversized", fmt.Sprintf("%d of %d huge pages of %s (%s) unused", spare, p.Total, units.Bytes(p.PageSizeBytes), units.Bytes(wasted))
		default:
			continue
		}
		f.Stake(wasted, fmt.Sprintf("(%d pages - %d in use) x %s", p.Total, used, units.Bytes(p.PageSizeBytes)))
		switch {
		case m.MemTotalBytes != nil && share(wasted, h.RAM) >= PoolWasteWarning:
			f.Severity = finding.Warning
		case wasted >= PoolWasteFloor:
			f.Severity = finding.Notice
		default:
			f.Severity = finding.Info
		}
		if k := cohost.OfKind(h.Software, cohost.Kubelet); len(k) > 0 {
			f.Severity = min(f.Severity, finding.Notice)
			f.Why = "On a Kubernetes node free pages are the pods' allocatable hugepages-" + PageSizeName(p.PageSizeBytes, "k8s") +
				": they wait for pods that request them, but no other process can use them meanwhile."
			f.Fix = "Size vm.nr_hugepages to what the node's pods request (kubectl describe node: Allocated resources)."
		}
		out = append(out, f)
	}
	return out
}

// hasHostPools reports whether any host-wide pool was read.
func hasHostPools(h host) bool {
	for _, p := range h.HugePools {
		if p.Node < 0 {
			return true
		}
	}
	return false
}

// checkPoolNUMA flags a pool spread unevenly over NUMA nodes.
func checkPoolNUMA(h host) []finding.Finding {
	if h.NUMANodes < 2 || h.Env.InContainer {
		return nil
	}
	byPage := map[uint64][]linux.HugePool{}
	for _, p := range h.HugePools {
		if p.Node >= 0 {
			byPage[p.PageSizeBytes] = append(byPage[p.PageSizeBytes], p)
		}
	}
	sizes := make([]uint64, 0, len(byPage))
	for size := range byPage {
		sizes = append(sizes, size)
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	var out []finding.Finding
	for _, size := range sizes {
		nodes := byPage[size]
		lo, hi, total, parts := nodes[0].Total, nodes[0].Total, uint64(0), []string{}
		for _, n := range nodes {
			lo, hi, total = min(lo, n.Total), max(hi, n.Total), total+n.Total
			parts = append(parts, fmt.Sprintf("node%d %d (%d free)", n.Node, n.Total, n.Free))
		}
		if total == 0 || (lo > 0 && hi <= 2*lo) {
			continue
		}
		f := finding.Finding{
			ID: "hugepages.numa", Severity: finding.Notice, Subject: "host",
			Title:    fmt.Sprintf("%s huge pages unevenly spread over %d NUMA nodes", units.Bytes(size), len(nodes)),
			Evidence: []finding.Evidence{ev("pool per node", strings.Join(parts, ", "), "/sys/devices/system/node/node*/hugepages")},
			Why: "A process takes huge pages from its own node first: with the pool on one node, processes on the others " +
				"reach all of shared memory across the interconnect, or fail to get pages under a strict memory policy.",
			Fix: "Split the pool evenly per node (`dbmem plan` writes each node's nr_hugepages).",
		}
		for i, n := range SplitNodes(total, len(nodes)) {
			f.Settings = append(f.Settings, sysfsSetting(nodePoolPath(nodes[i].Node, size), strconv.FormatUint(n, 10),
				strconv.FormatUint(nodes[i].Total, 10), "pages spread evenly over nodes"))
		}
		out = append(out, f)
	}
	return out
}

func nodePoolPath(node int, size uint64) string {
	return fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", node, size/KiB)
}

func poolText(p linux.HugePool) string {
	over := "unknown"
	if p.Overcommit != nil {
		over = strconv.FormatUint(*p.Overcommit, 10)
	}
	rsvd := "unknown"
	if p.Reserved != nil {
		rsvd = strconv.FormatUint(*p.Reserved, 10)
	}
	return fmt.Sprintf("%s pages: total %d, free %d, reserved %s, surplus %d, in use %d, overcommit %s",
		units.Bytes(p.PageSizeBytes), p.Total, p.Free, rsvd, p.Surplus, hostInUse(p), over)
}

// poolSource is where a pool was read, for evidence.
func poolSource(p linux.HugePool) string {
	if p.Source == linux.PoolFromMeminfo {
		return srcMeminfo
	}
	return srcPools
}

// hostInUse is a host-wide pool's pages in use. The readers always give a
// host-wide pool its reservation count (sysfs resv_hugepages, meminfo
// HugePages_Rsvd); without one, Total - Free is the pages faulted in.
func hostInUse(p linux.HugePool) uint64 {
	if n, ok := p.InUse(); ok {
		return n
	}
	return p.Total - min(p.Free, p.Total)
}

func needText(in instance) string {
	if in.NeedPages == 0 {
		return "the segment"
	}
	return fmt.Sprintf("%d pages (%s)", in.NeedPages, in.NeedSource)
}

// poolSetting is vm.nr_hugepages grown to hold the instance beside what is
// in use now; none for an instance of an untrusted account.
func poolSetting(h host, in instance) (finding.Setting, bool) {
	p, ok := h.DefaultPool()
	if !ok || in.NeedPages == 0 || in.Untrusted != "" {
		return finding.Setting{}, false
	}
	want := hostInUse(p) + in.NeedPages
	if want <= p.Total {
		return finding.Setting{}, false
	}
	s := sysctlSetting("vm.nr_hugepages", strconv.FormatUint(want, 10), strconv.FormatUint(p.Total, 10),
		fmt.Sprintf("%d pages in use + %d needed (%s)", hostInUse(p), in.NeedPages, in.NeedSource),
		"hold the instance's shared memory in huge pages")
	s.Evidence = []finding.Evidence{ev("huge page pool", poolText(p), poolSource(p))}
	return s, true
}

// waitingForHuge names an instance that asks for huge pages and runs
// without them (PostgreSQL huge_pages=on/try fallen back, MySQL
// large_pages=ON with its buffer pool in base pages): "" when none. A pool
// beside it is meant for it, not unused; its own finding (fallback with
// the cause, pool too small, SysV rights) says what the pool needs.
func (h host) waitingForHuge() string {
	for _, in := range h.Instances {
		if in.WantsHuge && in.Shared != nil && !in.Shared.Hugetlb {
			return in.Subject
		}
	}
	return ""
}
