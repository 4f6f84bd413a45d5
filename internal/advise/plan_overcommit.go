package advise

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// OvercommitPlan is strict overcommit sized for the host.
type OvercommitPlan struct {
	Ratio   int     `json:"ratio"`
	Reserve float64 `json:"reserve"`
	// CommitLimitBytes is what the kernel will give with Ratio:
	// (MemTotal - every hugetlb pool after the plan) x ratio / 100 + swap,
	// in pages as the kernel computes it (vm_commit_limit).
	CommitLimitBytes uint64 `json:"commit_limit_bytes"`
	// PoolsBytes is every hugetlb pool after the plan, of every page size:
	// the planned pool and the pools kept (other sizes, other owners).
	PoolsBytes uint64 `json:"pools_bytes"`
	Formula    string `json:"formula"`
	// CommittedAfterBytes is Committed_AS now minus the shared memory that
	// moves to huge pages; 0 for a what-if.
	CommittedAfterBytes uint64 `json:"committed_after_bytes,omitempty"`
}

func overcommitSettings(in PlanInput, hp *HugePagePlan, r *PlanResult) []finding.Setting {
	o, h := in.Options, in.Host
	if why, ok := strictNotAdvised(in); ok {
		r.Notes = append(r.Notes, why)
		return nil
	}
	if h.SwapUnknown != "" {
		swapMissing(h, r) // plan_missing.go
		return nil
	}
	pools, poolsText := poolsAfter(in, hp)
	ratio, formula, ok := OvercommitRatio(h.RAMBytes, h.SwapBytes, pools, o.Reserve)
	if !ok {
		r.Notes = append(r.Notes, noReserveNote(h, pools, poolsText, o.Reserve, formula))
		return nil
	}
	op := &OvercommitPlan{Ratio: ratio, Reserve: o.Reserve, PoolsBytes: pools, Formula: formula,
		CommitLimitBytes: CommitLimit(h.RAMBytes, h.SwapBytes, pools, ratio)}
	if !holdCommitted(in, hp != nil, op, r) {
		return nil
	}
	r.Overcommit = op
	clText := fmt.Sprintf("CommitLimit = (%s - %s huge pages) x %d%% + %s swap = %s", units.Bytes(h.RAMBytes), units.Bytes(pools),
		op.Ratio, units.Bytes(h.SwapBytes), units.Bytes(op.CommitLimitBytes))
	if poolsText != "" {
		clText += " (huge pages: " + poolsText + ")"
	}
	out := []finding.Setting{
		sysctlSetting("vm.overcommit_memory", "2", in.current("vm.overcommit_memory"), "2 (strict accounting)",
			"an allocation past CommitLimit fails (the query gets \"out of memory\") instead of an OOM kill that restarts every session"),
		sysctlSetting("vm.overcommit_ratio", strconv.Itoa(op.Ratio), in.current("vm.overcommit_ratio"), op.Formula+" -> "+clText,
			fmt.Sprintf("keeps %.0f%% of RAM for the page cache beside the huge page pools and swap", o.Reserve*100)),
	}
	if kb := in.current("vm.overcommit_kbytes"); kb != "" && kb != "0" {
		out = append(out, sysctlSetting("vm.overcommit_kbytes", "0", kb, "0", "the ratio applies only when overcommit_kbytes is 0"))
	}
	return out
}

// strictNotAdvised says why strict overcommit is not planned for this
// host, when it is not: the caller said the host is shared, dbmem runs in
// a pod (the node's setting), or software here needs overcommit.
func strictNotAdvised(in PlanInput) (string, bool) {
	if in.Options.SharedHost {
		return "shared host: strict overcommit (vm.overcommit_memory=2) not planned; it breaks software that reserves large " +
			"virtual ranges (JVMs, Go runtimes, container runtimes)", true
	}
	if in.InContainer {
		return "dbmem runs in a container: vm.overcommit_memory and the other kernel settings are the node's (kubelet runs " +
			"nodes with 1); the pod is bounded by its memory limit", true
	}
	cs := OvercommitConflicts(in.Software)
	if len(cs) == 0 {
		return "", false
	}
	var whys []string
	for _, c := range cs {
		whys = append(whys, c.Software.String()+" "+c.Why)
	}
	return "strict overcommit (vm.overcommit_memory=2) not planned: " + strings.Join(whys, "; ") + ". " + overcommitAlternative(cs), true
}

// poolsAfter is every hugetlb pool the host will hold after the plan, in
// bytes: the planned pool, and the host's pools of the other sizes (or of
// every size when no pool is planned), kept as they are: other software
// (an Oracle SGA) may hold them, and the kernel subtracts them all from
// CommitLimit. text names the parts when there is more than the planned
// pool.
func poolsAfter(in PlanInput, hp *HugePagePlan) (bytes uint64, text string) {
	var parts []string
	if hp != nil {
		bytes = hp.PoolBytes
		parts = append(parts, fmt.Sprintf("planned %d x %s", hp.PoolPages, units.Bytes(hp.PageSizeBytes)))
	}
	if in.Host.Now != nil {
		var held uint64
		for _, pi := range in.Instances {
			held += pi.HeldPages
		}
		for _, p := range in.Host.Now.Pools {
			if p.Node >= 0 || p.Total == 0 || hp != nil && p.PageSizeBytes == hp.PageSizeBytes {
				continue
			}
			pages := p.Total
			if hp == nil && held > 0 && p.PageSizeBytes == in.Options.PageSizeBytes {
				pages = min(pages, units.Sub(hostInUse(p), held)) // releasePool: the instances' pages return
			}
			bytes += pages * p.PageSizeBytes
			parts = append(parts, fmt.Sprintf("kept %d x %s", pages, units.Bytes(p.PageSizeBytes)))
		}
	}
	if len(parts) == 0 || hp != nil && len(parts) == 1 {
		return bytes, ""
	}
	return bytes, strings.Join(parts, " + ")
}

// noReserveNote says why no ratio keeps the page-cache reserve, naming
// what takes the memory.
func noReserveNote(h HostFacts, pools uint64, poolsText string, reserve float64, formula string) string {
	var takers []string
	if h.SwapBytes > 0 {
		takers = append(takers, units.Bytes(h.SwapBytes)+" of swap (CommitLimit counts it in full)")
	}
	if pools > 0 {
		p := units.Bytes(pools) + " of huge pages"
		if poolsText != "" {
			p += " (" + poolsText + ")"
		}
		takers = append(takers, p)
	}
	if len(takers) == 0 {
		return "strict overcommit not planned: " + formula
	}
	return fmt.Sprintf("strict overcommit not planned: %s take more than %.0f%% of %s RAM, so no vm.overcommit_ratio keeps %.0f%% "+
		"for the page cache (%s)", strings.Join(takers, " and "), (1-reserve)*100, units.Bytes(h.RAMBytes), reserve*100, formula)
}

// holdCommitted sets the plan against what is committed now. When the
// planned CommitLimit is under Committed_AS (minus the shared memory that
// moves to huge pages), switching to mode 2 makes fork and malloc fail
// machine-wide: on a host not in strict mode it is not planned; on a host
// already in strict mode the ratio is never lowered under what is
// committed (kept as it is, or raised to the smallest that holds). It
// returns false when strict overcommit is not planned.
func holdCommitted(in PlanInput, huge bool, op *OvercommitPlan, r *PlanResult) bool {
	now := in.Host.Now
	if now == nil {
		return true
	}
	if now.CommittedASBytes == nil {
		r.Notes = append(r.Notes, "Committed_AS is unknown (no such line in /proc/meminfo): check it is well below the planned CommitLimit "+
			units.Bytes(op.CommitLimitBytes)+" before switching to vm.overcommit_memory=2, or fork and malloc fail machine-wide")
		return true
	}
	committed := *now.CommittedASBytes
	op.CommittedAfterBytes = units.Sub(committed, movingToHuge(in, huge))
	after, limit := op.CommittedAfterBytes, op.CommitLimitBytes
	switch {
	case after <= limit:
		if after > limit/10*9 {
			r.Notes = append(r.Notes, fmt.Sprintf("Committed_AS is %s now (%s once shared memory moves to huge pages), near the planned CommitLimit %s: "+
				"apply after the restart that moves shared memory, or at boot, and watch overcommit.near_limit",
				units.Bytes(committed), units.Bytes(after), units.Bytes(limit)))
		}
		return true
	case in.current("vm.overcommit_memory") != "2":
		r.Notes = append(r.Notes, fmt.Sprintf("strict overcommit not planned: Committed_AS is %s now (%s once shared memory moves to huge pages), "+
			"above the CommitLimit %s that keeps the page-cache reserve: switching to vm.overcommit_memory=2 would make fork and malloc fail "+
			"machine-wide. Bring what is committed down first (smaller buffers, fewer connections: a pooler), then plan again",
			units.Bytes(committed), units.Bytes(after), units.Bytes(limit)))
		return false
	}
	return keepStrict(in, op, r)
}

// keepStrict raises the ratio of a host already in strict mode so that
// CommitLimit stays above what is committed: to its current value, or to
// the smallest that holds when that is higher.
func keepStrict(in PlanInput, op *OvercommitPlan, r *PlanResult) bool {
	h := in.Host
	need, ok := RatioHolding(h.RAMBytes, h.SwapBytes, op.PoolsBytes, op.CommittedAfterBytes)
	if !ok {
		r.Notes = append(r.Notes, fmt.Sprintf("vm.overcommit_ratio not planned: Committed_AS (%s) is above what any ratio allows "+
			"(%s at 100%%); strict overcommit is on, so bring what is committed down first",
			units.Bytes(op.CommittedAfterBytes), units.Bytes(CommitLimit(h.RAMBytes, h.SwapBytes, op.PoolsBytes, 100))))
		return false
	}
	ratio := need
	if cur, err := strconv.Atoi(in.current("vm.overcommit_ratio")); err == nil && cur > ratio && cur <= 100 && in.current("vm.overcommit_kbytes") == "0" {
		ratio = cur
	}
	wanted := op.Ratio
	op.Ratio, op.CommitLimitBytes = ratio, CommitLimit(h.RAMBytes, h.SwapBytes, op.PoolsBytes, ratio)
	op.Formula += fmt.Sprintf("; %d would put CommitLimit under Committed_AS %s on a host already in strict mode (fork and malloc "+
		"would fail at once): %d, the smallest that holds it is %d", wanted, units.Bytes(op.CommittedAfterBytes), ratio, need)
	r.Notes = append(r.Notes, fmt.Sprintf("vm.overcommit_ratio kept at %d, not lowered to %d: Committed_AS (%s) is above the CommitLimit the "+
		"%.0f%% page-cache reserve allows; the reserve holds again once less is committed",
		ratio, wanted, units.Bytes(op.CommittedAfterBytes), op.Reserve*100))
	return true
}

// movingToHuge is the shared memory now in 4 KiB pages that the plan moves
// to huge pages: it leaves Committed_AS.
func movingToHuge(in PlanInput, huge bool) uint64 {
	var moving uint64
	if huge {
		for _, pi := range in.Instances {
			moving += pi.SharedIn4KBytes
		}
	}
	return moving
}
