package mysql

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/units"
)

// HugeAPI is how a server maps its large pages (enginemem's, one type for
// every engine).
type HugeAPI = enginemem.HugeAPI

// The two ways (see enginemem.HugeMmap and HugeSysV).
const (
	HugeMmap = enginemem.HugeMmap
	HugeSysV = enginemem.HugeSysV
)

// APIOf tells how the server maps large pages: measured from its huge
// mappings when it has some, else from its flavor and version (VersionAPI).
func APIOf(in *Instance) (HugeAPI, string) {
	if ms := in.Memory.HugeMappings; len(ms) > 0 {
		if ms[0].SysV() {
			return HugeSysV, "measured: the server maps SysV segments in huge pages"
		}
		return HugeMmap, "measured: the server maps " + ms[0].Path + " in huge pages"
	}
	return VersionAPI(in.Flavor, in.Major, in.Minor)
}

// VersionAPI tells how a server of this flavor and version allocates large
// pages: MySQL 8.0+ (InnoDB's large page allocator) and MariaDB 10.5+
// (my_large_malloc) with mmap(MAP_HUGETLB); MySQL 5.7 and older and
// MariaDB 10.4 and older with shmget(SHM_HUGETLB). An unknown version
// (major 0) is assumed current: mmap.
func VersionAPI(f Flavor, major, minor int) (HugeAPI, string) {
	switch {
	case major == 0:
		return HugeMmap, "version unknown: assumed mmap (MariaDB 10.5+, MySQL 8.0+)"
	case f == MariaDB && (major < 10 || major == 10 && minor < 5), f != MariaDB && major < 8:
		return HugeSysV, fmt.Sprintf("%s %d.%d allocates large pages with shmget", f, major, minor)
	}
	return HugeMmap, fmt.Sprintf("%s %d.%d allocates large pages with mmap", f, major, minor)
}

// LargePageVariables name the buffers a server of this flavor allocates
// with its large-page allocator when large_pages=ON, besides the buffer
// pool: InnoDB's log buffer, the MyISAM key cache (my_large_malloc) and, in
// MariaDB, the Aria page cache. MariaDB 10.11.19 put its key cache and Aria
// page cache in huge pages before the buffer pool (measured: 124 MiB and
// 106 MiB of mappings for 128 MiB each).
func LargePageVariables(f Flavor) []Line {
	out := []Line{{Name: "log buffer", Formula: "innodb_log_buffer_size"}, {Name: "key buffer", Formula: "key_buffer_size"}}
	if f == MariaDB {
		out = append(out, Line{Name: "Aria page cache", Formula: "aria_pagecache_buffer_size"})
	}
	return out
}

// PlanHugePages sizes the huge page pool for the instance in pages of
// pageSize: the buffer pool (its measured mapping, or the setting) and the
// other large-page buffers (LargePageVariables), or, when the server
// already maps huge pages, those mappings plus a buffer pool left in 4 KiB
// pages. The need carries its own margin (OwnMarginPages) and, for SysV
// servers, what the kernel and the limits must allow.
func PlanHugePages(in *Instance, pageSize, basePage uint64) enginemem.HugeNeed {
	p := enginemem.HugeNeed{PageSizeBytes: pageSize, Exact: true}
	p.API, p.APIFrom = APIOf(in)
	if pageSize == 0 {
		return p
	}
	picksSize := p.API == HugeMmap && in.Flavor == MariaDB
	var shmMax, shmAll uint64
	add := func(name, formula string, b uint64) {
		if picksSize && b < pageSize {
			p.Smaller = append(p.Smaller, Line{Name: name, Bytes: b, Formula: formula})
			return
		}
		pages := units.CeilDiv(b, pageSize)
		p.Lines = append(p.Lines, Line{Name: name, Bytes: pages * pageSize,
			Formula: fmt.Sprintf("ceil(%s / %s) = %d pages (%s)", units.Bytes(b), units.Bytes(pageSize), pages, formula)})
		p.Pages += pages
		p.SharedBytes += b
		shmMax, shmAll = max(shmMax, b), shmAll+units.CeilDiv(b, basePage)
	}
	bp := in.Memory.BufferPool
	if bp == nil || !bp.Hugetlb {
		add("buffer pool", "innodb_buffer_pool_size or its measured mapping", bufferPoolLine(in).Bytes)
	}
	if len(in.Memory.HugeMappings) == 0 {
		for _, l := range LargePageVariables(in.Flavor) {
			if b, _ := in.Settings.Bytes(l.Formula); b > 0 {
				add(l.Name, l.Formula, b)
			}
		}
	}
	for _, m := range in.Memory.HugeMappings {
		add("huge mapping", fmt.Sprintf("measured %s at %#x", m.Path, m.Start), m.SizeBytes)
	}
	addMargin(&p)
	if p.API == HugeSysV {
		p.SysV = &enginemem.SysVNeed{MemlockBytes: p.Bytes(), ShmMaxBytes: shmMax, ShmAllPages: shmAll}
		if in.Creds != nil {
			g := in.Creds.GID
			p.SysV.ShmGroup = &g
		}
	}
	return p
}

// Margin of the plan: MariaDB 10.11.19 took between 627 and 643 pages
// over repeated starts of the same server (1 GiB buffer pool; which of its
// small allocations get huge pages depends on timing), and with exactly
// the pages it held in a previous run its buffer pool sometimes fell back
// to 4 KiB pages (2 of 5 starts); with 10% more, never (measured). A
// fallback is silent, so the plan errs on the generous side. The minimum is
// bytes (8 pages of 2 MiB, where it was measured), rounded up to pages: 16
// MiB is one page of 1 GiB, not 8.
const (
	MarginPercent  = 10
	MarginMinBytes = 16 << 20
)

func addMargin(p *enginemem.HugeNeed) {
	floor := units.CeilDiv(MarginMinBytes, p.PageSizeBytes)
	m := max(p.Pages*MarginPercent/100, floor)
	p.OwnMarginPages = m
	p.Lines = append(p.Lines, Line{Name: "margin", Bytes: m * p.PageSizeBytes,
		Formula: fmt.Sprintf("max(%d%% of %d, %s = %d pages) = %d pages: allocations at start vary, and one that does not fit falls back silently",
			MarginPercent, p.Pages, units.Bytes(MarginMinBytes), floor, m)})
	p.Pages += m
}
