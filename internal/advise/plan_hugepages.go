package advise

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// HugePagePlan is the pool for every planned instance.
type HugePagePlan struct {
	PageSizeBytes uint64  `json:"page_size_bytes"`
	NeedPages     uint64  `json:"need_pages"`
	MarginPages   uint64  `json:"margin_pages"`
	MarginPercent float64 `json:"margin_percent"`
	// OtherPages are in use now by processes that are not planned
	// instances; the pool keeps them.
	OtherPages uint64   `json:"other_pages"`
	PoolPages  uint64   `json:"pool_pages"`
	PoolBytes  uint64   `json:"pool_bytes"`
	PerNode    []uint64 `json:"per_node,omitempty"`
	// Boot says the size is not the kernel's default: the pool is reserved
	// on the kernel command line (1 GiB pages).
	Boot    bool   `json:"boot"`
	Exact   bool   `json:"exact"`
	Formula string `json:"formula"`
}

// planHugePages sizes the pool for the instances given (those that get
// huge pages); the pages every planned instance holds now are its own.
func planHugePages(in PlanInput, with []PlannedInstance) HugePagePlan {
	o := in.Options
	hp := HugePagePlan{PageSizeBytes: o.PageSizeBytes, Exact: true, MarginPercent: max(o.MarginPercent, 0)}
	for _, pi := range with {
		hp.Exact = hp.Exact && pi.Need.Exact
	}
	if !hp.Exact {
		hp.MarginPercent = max(hp.MarginPercent, EstimateMarginPercent)
	}
	var held, own uint64
	var srcs string
	for _, pi := range in.Instances {
		held += pi.HeldPages
	}
	for _, pi := range with {
		need := pagesAt(pi.Need, hp.PageSizeBytes)
		hp.NeedPages += need
		hp.MarginPages += instancePoolPages(pi.Need, hp) - need
		own += ownMargin(pi.Need, hp.PageSizeBytes)
		if srcs != "" {
			srcs += " + "
		}
		srcs += needTerm(need, pi)
	}
	if p, ok := nowPool(in, hp.PageSizeBytes); ok {
		hp.OtherPages = units.Sub(hostInUse(p), held)
	}
	hp.PoolPages = hp.NeedPages + hp.MarginPages + hp.OtherPages
	hp.PoolBytes = hp.PoolPages * hp.PageSizeBytes
	hp.Boot = hp.PageSizeBytes != defaultHugePage(in)
	if in.Host.NUMANodes > 1 {
		hp.PerNode = SplitNodes(hp.PoolPages, in.Host.NUMANodes)
	}
	margin := fmt.Sprintf("%g%% of the bytes, rounded up to pages", hp.MarginPercent)
	switch {
	case own > 0 && own == hp.NeedPages:
		margin = "every need carries its own"
	case own > 0:
		margin = fmt.Sprintf("%g%% of the bytes of the needs without a margin of their own, rounded up to pages", hp.MarginPercent)
	}
	hp.Formula = fmt.Sprintf("%s + margin %d (%s) + %d in use by others = %d pages of %s = %s",
		srcs, hp.MarginPages, margin, hp.OtherPages, hp.PoolPages, units.Bytes(hp.PageSizeBytes), units.Bytes(hp.PoolBytes))
	return hp
}

// ownMargin is the part of the need, in pages of size, that carries a
// margin of its own: all of it, or none.
func ownMargin(n HugePageNeed, size uint64) uint64 {
	if n.PageSizeBytes != size || n.OwnMarginPages == 0 {
		return 0
	}
	return n.Pages
}

// instancePoolPages is an instance's share of the pool: its need with the
// plan's margin (PoolPages), or its need alone when it carries its own.
func instancePoolPages(n HugePageNeed, hp HugePagePlan) uint64 {
	if ownMargin(n, hp.PageSizeBytes) > 0 {
		return pagesAt(n, hp.PageSizeBytes)
	}
	return PoolPages(n, hp.PageSizeBytes, hp.MarginPercent)
}

// PoolPages is the need in pages of size with a margin of percent added
// in bytes and the sum rounded up to pages: a 0.52 GiB segment with 2% is
// one page of 1 GiB (a margin in whole pages would take a second GiB). The
// bytes are the segment's size when known (not more than the pages hold),
// else the pages'. Never fewer pages than the need.
func PoolPages(n HugePageNeed, size uint64, percent float64) uint64 {
	need := pagesAt(n, size)
	if percent <= 0 || size == 0 {
		return need
	}
	bytes := n.SharedBytes
	if bytes == 0 || bytes > need*size {
		bytes = need * size
	}
	return max(need, uint64(math.Ceil(float64(bytes)*(1+percent/100)/float64(size))))
}

// pagesAt is the need in pages of size.
func pagesAt(n HugePageNeed, size uint64) uint64 {
	if n.PageSizeBytes == size && n.Pages > 0 {
		return n.Pages
	}
	return HugePagesFor(n.SharedBytes, size)
}

func defaultHugePage(in PlanInput) uint64 {
	if in.Host.DefaultHugePageBytes != 0 {
		return in.Host.DefaultHugePageBytes
	}
	return 2 * MiB
}

func nowPool(in PlanInput, size uint64) (linux.HugePool, bool) {
	if in.Host.Now == nil {
		return linux.HugePool{}, false
	}
	for _, p := range in.Host.Now.Pools {
		if p.Node < 0 && p.PageSizeBytes == size {
			return p, true
		}
	}
	return linux.HugePool{}, false
}

func hugePageSettings(in PlanInput, hp HugePagePlan, r *PlanResult) []finding.Setting {
	if in.InContainer || len(cohost.OfKind(in.Software, cohost.Kubelet)) > 0 {
		return nodePoolSettings(in, hp, r)
	}
	if hp.Boot {
		return bootPoolSettings(in, hp, r)
	}
	dyn := hp.NeedPages + hp.MarginPages
	reserved := sysctlSetting("vm.nr_hugepages", u(hp.PoolPages), in.current("vm.nr_hugepages"), hp.Formula,
		"a reserved pool: PostgreSQL with huge_pages=on starts only if these pages are free, and MySQL/MariaDB put in 4 KiB pages whatever does not fit")
	dynamic := []finding.Setting{
		sysctlSetting("vm.nr_hugepages", u(hp.OtherPages), in.current("vm.nr_hugepages"),
			fmt.Sprintf("%d in use by others", hp.OtherPages), "no reserved pool for the planned instances"),
		sysctlSetting("vm.nr_overcommit_hugepages", u(dyn), in.current("vm.nr_overcommit_hugepages"),
			fmt.Sprintf("need %d + margin %d", hp.NeedPages, hp.MarginPages),
			"pages allocated when the instance starts and returned when it stops: no RAM held while unused, "+
				"but the allocation can fail on fragmented memory (then huge_pages=on refuses to start)"),
	}
	var out []finding.Setting
	if in.Options.Dynamic {
		out, r.Alternatives = dynamic, append(r.Alternatives, reserved)
	} else {
		out, r.Alternatives = []finding.Setting{reserved}, append(r.Alternatives, dynamic...)
	}
	for i, n := range hp.PerNode {
		s := sysfsSetting(nodePoolPath(i, hp.PageSizeBytes), u(n), "",
			"each node holds the pages of the processes that run on it: no remote access to shared memory")
		s.Formula = fmt.Sprintf("%d pages / %d nodes, node %d's share", hp.PoolPages, len(hp.PerNode), i)
		out = append(out, s)
	}
	return out
}

// bootPoolSettings reserve pages of a non-default size (1 GiB) at boot.
func bootPoolSettings(in PlanInput, hp HugePagePlan, r *PlanResult) []finding.Setting {
	size := PageSizeName(hp.PageSizeBytes, "kernel")
	if !offers(in.Host, hp.PageSizeBytes) {
		r.Notes = append(r.Notes, fmt.Sprintf("this kernel offers no %s huge pages (for 1 GiB pages the CPU needs the pdpe1gb flag)", size))
	}
	if in.Options.Dynamic {
		r.Notes = append(r.Notes, "pages of "+size+" cannot be allocated on demand (nr_overcommit_hugepages): planning a pool reserved at boot")
	}
	why := "pages of " + size + " must be reserved at boot: later, memory is too fragmented to find them"
	out := []finding.Setting{
		{Target: finding.TargetKernelArgs, Name: "hugepagesz", Value: size, Formula: size + " pages", Why: why, Restart: "reboot"},
		{Target: finding.TargetKernelArgs, Name: "hugepages", Value: u(hp.PoolPages), Formula: hp.Formula, Why: why, Restart: "reboot"},
	}
	if needsDefaultSize(in) {
		out = append([]finding.Setting{{Target: finding.TargetKernelArgs, Name: "default_hugepagesz", Value: size, Formula: size,
			Why: "PostgreSQL before 14 and MySQL/MariaDB have no setting for the page size: they use the default size", Restart: "reboot"}}, out...)
	}
	r.Alternatives = append(r.Alternatives, sysfsSetting(fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages", hp.PageSizeBytes/KiB),
		u(hp.PoolPages), "", "at runtime, without a reboot: often falls short, memory being fragmented; read the file back"))
	return out
}

// needsDefaultSize: an engine that cannot choose its page size
// (PostgreSQL before 14; MySQL and MariaDB take the default size).
func needsDefaultSize(in PlanInput) bool {
	for _, pi := range in.Instances {
		if pi.Engine.Name == finding.EnginePostgres && pi.Engine.Major > 0 && pi.Engine.Major < 14 || pi.MySQL != nil {
			return true
		}
	}
	return false
}

func offers(h HostFacts, size uint64) bool {
	return h.HugePageSizes == nil || slices.Contains(h.HugePageSizes, size)
}

func u(n uint64) string { return strconv.FormatUint(n, 10) }

// nodePoolSettings: inside a pod, or on a Kubernetes node, the pool is the
// node's, shared by every pod (kubelet reports its free pages as the pods'
// allocatable hugepages): it is never shrunk, and grown only by what the
// planned instances lack.
func nodePoolSettings(in PlanInput, hp HugePagePlan, r *PlanResult) []finding.Setting {
	p, ok := nowPool(in, hp.PageSizeBytes)
	mine := hp.NeedPages + hp.MarginPages
	var held uint64
	for _, pi := range in.Instances {
		held += pi.HeldPages
	}
	if !ok {
		r.Notes = append(r.Notes, fmt.Sprintf("the node's pool of %s pages was not read: the pod needs %d of them (hugepages-%s)",
			units.Bytes(hp.PageSizeBytes), mine, PageSizeName(hp.PageSizeBytes, "k8s")))
		return nil
	}
	room := units.Sub(p.Total, hostInUse(p)) + held
	if room >= mine {
		r.Notes = append(r.Notes, fmt.Sprintf("the node's pool (%s) has room for the pod's %d pages: nothing to change on the node; "+
			"the pod needs its hugepages-%s request", poolText(p), mine, PageSizeName(hp.PageSizeBytes, "k8s")))
		return nil
	}
	s := sysctlSetting("vm.nr_hugepages", u(p.Total+mine-room), u(p.Total),
		fmt.Sprintf("the node's %d pages + %d the pod lacks (it needs %d, %d are free for it)", p.Total, mine-room, mine, room),
		"on the node: the pool serves every pod, so it only grows by what this pod lacks")
	return []finding.Setting{s}
}
