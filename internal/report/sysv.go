package report

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/sysv"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// writeSysV renders the SysV shared memory section: every segment with its
// owner, size, attaching processes and page size, then the pool it needs
// and the problems found. Nothing when /proc/sysvipc/shm was not read.
func writeSysV(b *strings.Builder, s *sysv.Snapshot, st style) {
	if s == nil {
		return
	}
	k := s.Kernel
	var total uint64
	for _, seg := range s.Segments {
		total += seg.SizeBytes
	}
	fmt.Fprintf(b, "\n%s  %d segments, %s; kernel.shmmax %s, kernel.shmall %s pages, kernel.shmmni %d, vm.hugetlb_shm_group %d\n",
		st.head("SYSV SHARED MEMORY"), len(s.Segments), units.Bytes(total), limitText(k.ShmMaxBytes), countText(k.ShmAllPages), k.ShmMni, k.HugetlbShmGroup)
	if len(s.Segments) == 0 {
		return
	}
	t := texttable.New(">SHMID", "KEY", ">UID", ">SIZE", ">NATTCH", "PAGES", ">RESIDENT", "ATTACHED BY").
		Fit(st.width).Drop("UID", "KEY")
	for _, seg := range s.Segments {
		t.Add(fmt.Sprint(seg.ID), "0x"+seg.KeyHex(), fmt.Sprint(seg.UID), units.Short(seg.SizeBytes), fmt.Sprint(seg.Attached),
			segPages(seg), segResident(seg, k.PageSizeBytes), pidList(seg.PIDs(), 6))
	}
	b.WriteString(t.Render("  "))
	writeSysVPool(b, s)
	writeSysVProblems(b, s, st)
}

func segPages(seg sysv.SegmentInfo) string {
	switch {
	case seg.Huge == sysv.HugeYes && seg.HugeByRSS:
		return "huge (by rss)"
	case seg.Huge == sysv.HugeYes:
		return units.Short(seg.PageSizeBytes) + " huge"
	case seg.Huge == sysv.HugeNo:
		return units.Short(seg.PageSizeBytes)
	}
	return "unknown"
}

func segResident(seg sysv.SegmentInfo, base uint64) string {
	if r, ok := seg.ResidentBytes(base); ok {
		return units.Short(r)
	}
	return "-"
}

func pidList(pids []int, max int) string {
	if len(pids) == 0 {
		return "-"
	}
	var parts []string
	for i, p := range pids {
		if i == max {
			parts = append(parts, fmt.Sprintf("+%d", len(pids)-max))
			break
		}
		parts = append(parts, fmt.Sprint(p))
	}
	return strings.Join(parts, " ")
}

func writeSysVPool(b *strings.Builder, s *sysv.Snapshot) {
	hp := s.Kernel.HugePageSize()
	if hp == 0 {
		fmt.Fprintf(b, "  Huge pages   need unknown: the default huge page size is not known (no Hugepagesize line in /proc/meminfo)\n")
		return
	}
	need := sysv.HugePagesNeeded(s.Segments, hp)
	fmt.Fprintf(b, "  Huge pages   all segments in %s pages need %d pages (sum of ceil(size / page)); Oracle's hugepages_settings.sh "+
		"would say %d (sum of size/page + 1, plus 1); in huge pages now: %d segments, %d pages\n",
		units.Bytes(hp), need.Total.Pages, need.OracleScriptPages, need.Total.HugetlbSegments, need.Total.HugetlbPages)
}

func writeSysVProblems(b *strings.Builder, s *sysv.Snapshot, st style) {
	for _, f := range sysv.CheckHugetlbRights(*s) {
		o := f.Owner
		fmt.Fprintf(b, "  Rights       uid %d (pids %v): %s: memlock %s for %s of SHM_HUGETLB segments, in vm.hugetlb_shm_group %v, CAP_IPC_LOCK %v\n",
			o.UID, o.PIDs, st.warn(string(f.Problem)), limitText(o.MemlockBytes), units.Bytes(o.NeededBytes), o.InShmGroup, o.CapIPCLock)
	}
	for _, o := range sysv.CheckOrphans(s.Segments, s.Kernel) {
		held := "unknown"
		if o.HeldKnown {
			held = units.Bytes(o.HeldBytes)
		}
		fmt.Fprintf(b, "  Orphan       segment %d (uid %d, %s, %s held) has no process attached: %s\n",
			o.ID, o.UID, units.Bytes(o.SizeBytes), held, st.warn(fmt.Sprintf("ipcrm -m %d", o.ID)))
	}
	for _, c := range sysv.CheckHugePageCandidates(s.Segments, sysv.DefaultCandidateBytes, s.Kernel.HugePageSize()) {
		fmt.Fprintf(b, "  4 KiB pages  segment %d (%s) costs %s of page tables in each of its %d processes (%s in huge pages)\n",
			c.ID, units.Bytes(c.SizeBytes), units.Bytes(c.PageTableBytesPerProcess), len(c.Attachers), units.OptBytes(c.HugePageTableBytesPerProcess))
	}
	t := sysv.CheckTotals(s.Segments, s.Kernel)
	if t.OverShmAll() || t.OverShmMni() {
		fmt.Fprintf(b, "  Limits       %s\n", st.bad(fmt.Sprintf("%d pages in use over kernel.shmall %d, or %d segments at kernel.shmmni %d: new segments fail",
			t.Pages, t.ShmAllPages, t.Segments, t.ShmMni)))
	}
	if !s.Degraded.Complete() {
		fmt.Fprintf(b, "  Not seen     %d processes refused or failed (pids %s): their attaches are missing\n",
			len(s.Degraded.Denied)+len(s.Degraded.Problems), pidList(s.Degraded.Denied, 6))
	}
}

// limitText renders a byte limit; the kernel's "no limit" values
// (ULONG_MAX - 2^24 for shmmax and shmall, RLIM_INFINITY) read "unlimited".
func limitText(v uint64) string {
	if v >= 1<<62 {
		return "unlimited"
	}
	return units.Bytes(v)
}

func countText(v uint64) string {
	if v >= 1<<62 {
		return "unlimited"
	}
	return fmt.Sprint(v)
}
