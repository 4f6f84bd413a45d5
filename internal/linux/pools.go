package linux

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// meminfoPool is the default huge page size's pool as /proc/meminfo gives
// it. ok is false, with the missing lines, when meminfo cannot make one.
func meminfoPool(m Meminfo, sysctls Sysctls) (p HugePool, missing []string, ok bool) {
	for _, f := range []struct {
		key string
		v   *uint64
	}{{"Hugepagesize", m.HugepagesizeBytes}, {"HugePages_Total", m.HugePagesTotal}, {"HugePages_Free", m.HugePagesFree},
		{"HugePages_Rsvd", m.HugePagesRsvd}, {"HugePages_Surp", m.HugePagesSurp}} {
		if f.v == nil {
			missing = append(missing, f.key)
		}
	}
	if len(missing) > 0 {
		return HugePool{}, missing, false
	}
	p = HugePool{PageSizeBytes: *m.HugepagesizeBytes, Node: -1, Total: *m.HugePagesTotal, Free: *m.HugePagesFree,
		Reserved: new(*m.HugePagesRsvd), Surplus: *m.HugePagesSurp, Source: PoolFromMeminfo}
	if v, ok := sysctls.Uint("vm.nr_overcommit_hugepages"); ok {
		p.Overcommit = &v
	}
	return p, nil, true
}

// hasHugeLines reports whether meminfo has any line of the default pool.
func hasHugeLines(m Meminfo) bool {
	return m.HugePagesTotal != nil || m.HugePagesFree != nil || m.HugePagesRsvd != nil ||
		m.HugePagesSurp != nil || m.HugepagesizeBytes != nil
}

// reconcilePools joins the pools read from sysfs with the default pool of
// meminfo: meminfo's pool is added when sysfs has none of its size, and
// compared with sysfs's when both exist (a disagreement becomes a gap;
// sysfs is kept). A meminfo pool that cannot be made (no Hugepagesize
// line, or a count missing) is a gap naming the lines.
func reconcilePools(pools []HugePool, m Meminfo, sysctls Sysctls) ([]HugePool, []Gap) {
	pools, gaps := joinDefaultPool(pools, m, sysctls)
	return pools, append(gaps, hugetlbGap(pools, m)...)
}

// hugetlbGap says when meminfo's Hugetlb (all pools, 4.16+) holds more than
// the pools read: the rest is in pools of sizes that were not read.
func hugetlbGap(pools []HugePool, m Meminfo) []Gap {
	if m.HugetlbBytes == nil {
		return nil
	}
	var held uint64
	for _, p := range pools {
		if p.Node < 0 {
			held += p.Bytes()
		}
	}
	if *m.HugetlbBytes <= held {
		return nil
	}
	return []Gap{{What: "huge page pools of other sizes",
		Why: fmt.Sprintf("Hugetlb %s in /proc/meminfo, the pools read hold %s: %s are in pools that were not read (sysfs)",
			units.Bytes(*m.HugetlbBytes), units.Bytes(held), units.Bytes(*m.HugetlbBytes-held))}}
}

// joinDefaultPool adds or cross-checks meminfo's default pool.
func joinDefaultPool(pools []HugePool, m Meminfo, sysctls Sysctls) ([]HugePool, []Gap) {
	if !hasHugeLines(m) {
		return pools, nil
	}
	mp, missing, ok := meminfoPool(m, sysctls)
	if !ok {
		if m.HugepagesizeBytes != nil {
			if _, found := hostPool(pools, *m.HugepagesizeBytes); found {
				return pools, nil // sysfs has the whole pool
			}
		}
		return pools, []Gap{{What: "default huge page pool in /proc/meminfo",
			Why: "no " + strings.Join(missing, ", ") + " line: " + poolUnknownWhy(m, missing)}}
	}
	sp, found := hostPool(pools, mp.PageSizeBytes)
	if !found {
		return sortPools(append(pools, mp)), nil
	}
	if d := poolDisagreement(sp, mp); d != "" {
		return pools, []Gap{{What: fmt.Sprintf("huge page pool of %d kB", mp.PageSizeBytes>>10),
			Why: "/proc/meminfo and sysfs disagree (" + d + "; read at different moments, or the pool changed meanwhile): sysfs shown"}}
	}
	return pools, nil
}

func poolUnknownWhy(m Meminfo, missing []string) string {
	if m.HugepagesizeBytes == nil {
		return "the default huge page size is unknown, so HugePages_* are not tied to a page size"
	}
	return "the default pool is incomplete"
}

func hostPool(pools []HugePool, size uint64) (HugePool, bool) {
	for _, p := range pools {
		if p.Node < 0 && p.PageSizeBytes == size {
			return p, true
		}
	}
	return HugePool{}, false
}

// poolDisagreement names the counts that differ, "" when none do.
func poolDisagreement(sys, mem HugePool) string {
	var d []string
	add := func(name string, a, b uint64) {
		if a != b {
			d = append(d, fmt.Sprintf("%s %d in meminfo, %d in sysfs", name, b, a))
		}
	}
	add("HugePages_Total", sys.Total, mem.Total)
	add("HugePages_Free", sys.Free, mem.Free)
	if sys.Reserved != nil {
		add("HugePages_Rsvd", *sys.Reserved, *mem.Reserved)
	}
	add("HugePages_Surp", sys.Surplus, mem.Surplus)
	return strings.Join(d, ", ")
}
