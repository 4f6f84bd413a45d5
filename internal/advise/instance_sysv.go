package advise

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/sysv"
	"github.com/dbmem/dbmem/internal/units"
)

// engineSysV names the owner of SysV segments whose program is not known.
const engineSysV = "sysv"

// fromSysV builds the views of the owners of SysV segments (Oracle's SGA,
// another program's), one per uid, from the attached segments that no
// process of servers attaches: a PostgreSQL or MySQL/MariaDB server's
// segments are its own view's. Orphans are the host's (sysvChecks).
func fromSysV(s *sysv.Snapshot, servers []instance, sw []cohost.Software, defaultHuge uint64) []instance {
	if s == nil {
		return nil
	}
	taken := map[int]bool{}
	for _, in := range servers {
		taken[in.MainPID] = true
		for _, p := range in.Procs {
			taken[p.PID] = true
		}
	}
	byUID := map[uint32][]sysv.SegmentInfo{}
	for _, seg := range s.Segments {
		if seg.Attached > 0 && !slices.ContainsFunc(seg.Attachments, func(a sysv.Attachment) bool { return taken[a.PID] }) {
			byUID[seg.UID] = append(byUID[seg.UID], seg)
		}
	}
	owned := *s
	var out []instance
	for _, uid := range slices.Sorted(maps.Keys(byUID)) {
		owned.Segments = byUID[uid]
		out = append(out, sysvOwner(owned, uid, sw, defaultHuge))
	}
	return out
}

// sysvOwner is one uid's segments as an instance: Oracle when its
// processes are Oracle's. Its main shared memory is its biggest segment in
// base pages, else its biggest; it wants huge pages when it created any
// segment with SHM_HUGETLB, and needs the pages of those in base pages.
// s holds the owner's segments only.
func sysvOwner(s sysv.Snapshot, uid uint32, sw []cohost.Software, defaultHuge uint64) instance {
	segs := s.Segments
	v := instance{Engine: Engine{Name: engineSysV}, Subject: fmt.Sprintf("SysV segments of uid %d", uid),
		DefaultHuge: defaultHuge, words: sysvWords, sv: segs}
	if o, ok := oracleOf(segs, sw); ok {
		v.Engine.Name, v.Subject = finding.EngineOracle, inert.Text(o.Name)+", "+v.Subject
	}
	huge := 0
	for _, seg := range segs {
		if seg.Huge == sysv.HugeYes {
			huge++
		} else if seg.Huge == sysv.HugeNo {
			v.NeedPages += HugePagesFor(seg.SizeBytes, defaultHuge)
		}
	}
	main := slices.MaxFunc(segs, func(a, b sysv.SegmentInfo) int {
		return cmp.Or(cmp.Compare(inBasePages(a), inBasePages(b)), cmp.Compare(a.SizeBytes, b.SizeBytes))
	})
	v.Shared = &segment{Path: fmt.Sprintf("SysV segment %d", main.ID), Bytes: main.SizeBytes, PageSize: main.PageSizeBytes, Hugetlb: main.Huge == sysv.HugeYes}
	v.WantsHuge, v.NeedSource = huge > 0, "its segments in base pages / huge page size, each rounded up"
	v.HugeSetting = ev("SHM_HUGETLB", fmt.Sprintf("%d of %d segments", huge, len(segs)), "smaps of an attaching process")
	if r := sysv.HugetlbOwners(s); len(r) == 1 {
		v.Rights = &r[0]
	}
	return v
}

func inBasePages(s sysv.SegmentInfo) int { return map[bool]int{true: 1}[s.Huge == sysv.HugeNo] }

// oracleOf finds the Oracle instance whose processes attach the segments.
func oracleOf(segs []sysv.SegmentInfo, sw []cohost.Software) (cohost.Software, bool) {
	for _, o := range cohost.OfKind(sw, cohost.Oracle) {
		for _, seg := range segs {
			if slices.ContainsFunc(seg.Attachments, func(a sysv.Attachment) bool { return slices.Contains(o.PIDs, a.PID) }) {
				return o, true
			}
		}
	}
	return cohost.Software{}, false
}

var sysvWords = engineWords{
	hugeSkipName: "sysv.4k_segment",
	sharedWhat:   "its SysV segments",
	noSettings:   true,
}

// checkSysVPages is checkHugePagesUsed's word for an owner of SysV
// segments: each big segment in base pages, with its page table cost.
func checkSysVPages(h host, in instance) []finding.Finding {
	var out []finding.Finding
	for _, c := range sysv.CheckHugePageCandidates(in.sv, sysv.DefaultCandidateBytes, in.DefaultHuge) {
		out = append(out, finding.Finding{ID: "sysv.4k_segment", Severity: finding.Notice, Subject: in.Subject,
			Title: fmt.Sprintf("SysV segment %d (%s) in 4 KiB pages, attached by %d processes", c.ID, units.Bytes(c.SizeBytes), len(c.Attachers)),
			Evidence: []finding.Evidence{ev("page size", units.Bytes(c.PageSizeBytes), "smaps of an attaching process"),
				ev("page tables per process", units.Bytes(c.PageTableBytesPerProcess), "size / 4 KiB x 8 B"),
				ev("page tables, all attachers", units.Bytes(c.PageTableBytesAll), "computed"),
				ev("in huge pages", hugeCandidateText(c), "computed")},
			Why: "Every process that touches the segment pays 2 MiB of page table per GiB (the 5 GB of page tables of the Oracle field report).",
			Fix: "Create it with SHM_HUGETLB (Oracle USE_LARGE_PAGES=ONLY, MySQL large_pages) with a pool of sum(size/page)+1 pages."})
	}
	return out
}

func hugeCandidateText(c sysv.HugePageCandidate) string {
	if c.HugePages == nil {
		return "unknown: the default huge page size is not known (no Hugepagesize in /proc/meminfo)"
	}
	return fmt.Sprintf("%d pages, %s of page table per process", *c.HugePages, units.Bytes(*c.HugePageTableBytesPerProcess))
}
