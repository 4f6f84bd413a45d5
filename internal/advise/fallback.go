package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// fallbackCause is why an instance that asks for huge pages runs in base
// pages although the pool is not (or not only) what stopped it: the page
// size it asked for, or its cgroup's hugetlb limit. The fix is then there,
// never "grow the pool".
type fallbackCause struct {
	What     string // for the title: "huge_page_size=1GB: the host has no free 1 GiB pages"
	Fix      string
	Evidence []finding.Evidence
}

// causeOfFallback finds the cause, in the order the kernel checks: the
// page size asked for, then the cgroup's hugetlb limits. ok is false when
// neither explains it (then the pool does, or the cause is not visible now).
func causeOfFallback(h host, in instance) (fallbackCause, bool) {
	if c, ok := pageSizeCause(h, in); ok {
		return c, true
	}
	return cgroupCause(in)
}

// pageSizeCause: PostgreSQL's huge_page_size asks for a size whose pool
// cannot hold the segment while the default pool could.
func pageSizeCause(h host, in instance) (fallbackCause, bool) {
	def, ok := h.DefaultPageSize()
	size := in.HugePageSize
	if !ok || size == 0 || size == def || in.Shared == nil {
		return fallbackCause{}, false
	}
	need := HugePagesFor(in.Shared.Bytes, size)
	var free uint64
	pool, have := h.Pool(size)
	if have {
		free = units.Sub(pool.Total, hostInUse(pool))
	}
	if free >= need {
		return fallbackCause{}, false
	}
	name := PageSizeName(size, "postgres")
	c := fallbackCause{
		What: fmt.Sprintf("huge_page_size=%s asks for %s pages and the host has %d free (%d needed)", name, units.Bytes(size), free, need),
		Fix: fmt.Sprintf("Set huge_page_size=0 (the kernel's default, %s, whose pool holds the segment) or reserve %d pages of %s at boot "+
			"(hugepagesz=%s hugepages=%d); then huge_pages=on and restart. The pool of %s pages is the one the first fix uses: keep it.",
			units.Bytes(def), need, units.Bytes(size), PageSizeName(size, "kernel"), need, units.Bytes(def)),
		Evidence: []finding.Evidence{ev("huge_page_size", name, "settings")},
	}
	if have {
		c.Evidence = append(c.Evidence, ev("pool of "+units.Bytes(size)+" pages", poolText(pool), poolSource(pool)))
	}
	return c, true
}

// cgroupCause: the instance's cgroup limits hugetlb pages of its size
// below the segment (a pod that requests no hugepages-<size> gets 0).
func cgroupCause(in instance) (fallbackCause, bool) {
	if in.Shared == nil {
		return fallbackCause{}, false
	}
	size := in.HugePageSize
	if size == 0 {
		size = in.DefaultHuge
	}
	var hl linux.CgroupHugetlb
	ok := false
	for _, x := range in.Hugetlb {
		if x.PageSizeBytes == size {
			hl, ok = x, true
		}
	}
	need := HugePagesFor(in.Shared.Bytes, max(size, 1)) * size
	limit, path := hugetlbLimit(hl)
	if !ok || limit == nil || *limit >= need {
		return fallbackCause{}, false
	}
	res := "hugepages-" + PageSizeName(size, "k8s")
	c := fallbackCause{
		What: fmt.Sprintf("its cgroup limits huge pages of %s to %s (%s), below the %s segment", units.Bytes(size), units.Bytes(*limit), path, units.Bytes(need)),
		Fix: fmt.Sprintf("Give the container the huge pages it maps: resources.requests and limits %s: %s (the segment and a margin; "+
			"kubelet sets hugetlb.%s.max and rsvd.max from it), then huge_pages=on. The node's pool is not the cause: do not grow it for this.",
			res, Quantity(PoolPages(HugePageNeed{PageSizeBytes: size, Pages: need / size, SharedBytes: in.Shared.Bytes}, size, DefaultMarginPercent)*size),
			linux.HugetlbSizeName(size)),
		Evidence: []finding.Evidence{ev("hugetlb."+linux.HugetlbSizeName(size)+" limit", units.Bytes(*limit)+" at "+path, fmt.Sprintf("cgroup v%d", hl.Version))},
	}
	if *limit == 0 {
		c.What += fmt.Sprintf(": the pod requests no %s", res)
	}
	if hl.LimitHits != nil {
		c.Evidence = append(c.Evidence, ev("allocations refused by the limit", fmt.Sprint(*hl.LimitHits), "hugetlb."+linux.HugetlbSizeName(size)+".events"))
	}
	return c, true
}

// hugetlbLimit is the lower of the fault and the reservation limits.
func hugetlbLimit(hl linux.CgroupHugetlb) (*uint64, string) {
	switch {
	case hl.RsvdLimitBytes != nil && (hl.LimitBytes == nil || *hl.RsvdLimitBytes < *hl.LimitBytes):
		return hl.RsvdLimitBytes, hl.RsvdLimitPath
	case hl.LimitBytes != nil:
		return hl.LimitBytes, hl.LimitPath
	}
	return nil, ""
}
