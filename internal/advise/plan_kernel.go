package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/units"
)

// OvercommitPlan is strict overcommit sized for the host.
type OvercommitPlan struct {
	Ratio            int     `json:"ratio"`
	Reserve          float64 `json:"reserve"`
	CommitLimitBytes uint64  `json:"commit_limit_bytes"`
	Formula          string  `json:"formula"`
	// CommittedAfterBytes is Committed_AS now minus the shared memory that
	// moves to huge pages; 0 for a what-if.
	CommittedAfterBytes uint64 `json:"committed_after_bytes,omitempty"`
}

func overcommitSettings(in PlanInput, poolBytes uint64, r *PlanResult) []Setting {
	o, h := in.Options, in.Host
	if o.SharedHost {
		r.Notes = append(r.Notes, "shared host: strict overcommit (vm.overcommit_memory=2) not planned; it breaks software that reserves large virtual ranges (JVMs, Go runtimes, container runtimes)")
		return nil
	}
	ratio, formula, ok := OvercommitRatio(h.RAMBytes, h.SwapBytes, poolBytes, o.Reserve)
	if !ok {
		r.Notes = append(r.Notes, "no vm.overcommit_ratio keeps the page-cache reserve: swap and huge pages take more than "+
			fmt.Sprintf("%.0f%% of RAM (%s); reduce swap first", (1-o.Reserve)*100, formula))
		return nil
	}
	cl := CommitLimit(h.RAMBytes, h.SwapBytes, poolBytes, ratio)
	op := &OvercommitPlan{Ratio: ratio, Reserve: o.Reserve, CommitLimitBytes: cl, Formula: formula}
	r.Overcommit = op
	clText := fmt.Sprintf("CommitLimit = (%s - %s) x %d%% + %s swap = %s", units.Bytes(h.RAMBytes), units.Bytes(poolBytes), ratio, units.Bytes(h.SwapBytes), units.Bytes(cl))
	out := []Setting{
		sysctlSetting("vm.overcommit_memory", "2", in.current("vm.overcommit_memory"), "2 (strict accounting)",
			"an allocation past CommitLimit fails (the query gets \"out of memory\") instead of an OOM kill that restarts every session"),
		sysctlSetting("vm.overcommit_ratio", strconv.Itoa(ratio), in.current("vm.overcommit_ratio"), formula+" -> "+clText,
			fmt.Sprintf("keeps %.0f%% of RAM for the page cache beside the huge page pool and swap", o.Reserve*100)),
	}
	if kb := in.current("vm.overcommit_kbytes"); kb != "" && kb != "0" {
		out = append(out, sysctlSetting("vm.overcommit_kbytes", "0", kb, "0", "the ratio applies only when overcommit_kbytes is 0"))
	}
	checkSwitchNow(in, poolBytes > 0, op, r)
	return out
}

// checkSwitchNow warns when Committed_AS already exceeds the planned limit:
// switching then makes fork and malloc fail machine-wide.
func checkSwitchNow(in PlanInput, huge bool, op *OvercommitPlan, r *PlanResult) {
	now := in.Host.Now
	if now == nil {
		return
	}
	if now.CommittedASBytes == nil {
		r.Notes = append(r.Notes, "Committed_AS is unknown (no such line in /proc/meminfo): check it is well below the planned CommitLimit "+
			units.Bytes(op.CommitLimitBytes)+" before switching to vm.overcommit_memory=2, or fork and malloc fail machine-wide")
		return
	}
	committed := *now.CommittedASBytes
	var moving uint64
	if huge {
		for _, pi := range in.Instances {
			moving += pi.SharedIn4KBytes
		}
	}
	op.CommittedAfterBytes = sub(committed, moving)
	if op.CommittedAfterBytes > op.CommitLimitBytes*9/10 {
		r.Notes = append(r.Notes, fmt.Sprintf("Committed_AS is %s now (%s once shared memory moves to huge pages), near or above the planned CommitLimit %s: "+
			"switching to mode 2 now can make fork and malloc fail machine-wide; apply after the restart that moves shared memory, or at boot",
			units.Bytes(committed), units.Bytes(op.CommittedAfterBytes), units.Bytes(op.CommitLimitBytes)))
	}
}

// kernelSettings are swappiness, THP and zone reclaim.
func kernelSettings(in PlanInput) []Setting {
	var out []Setting
	if in.Host.SwapBytes > 0 { // without swap, swappiness changes nothing
		out = append(out, sysctlSetting("vm.swappiness", strconv.Itoa(in.Options.Swappiness), in.current("vm.swappiness"),
			strconv.Itoa(in.Options.Swappiness)+" (database host: swap only as a last resort)",
			"swapping database memory out to keep page cache turns memory accesses into disk reads"))
	}
	e := planEngine(in)
	a := e.THP()
	var thp [2]string
	if in.Host.Now != nil {
		thp = [2]string{in.Host.Now.THP.Enabled, in.Host.Now.THP.Defrag}
	}
	out = append(out,
		thpSetting("enabled", a.Want, thp[0], e, a), thpSetting("defrag", a.Want, thp[1], e, a))
	if z := in.current("vm.zone_reclaim_mode"); in.Host.NUMANodes > 1 || (z != "" && z != "0") {
		out = append(out, sysctlSetting("vm.zone_reclaim_mode", "0", z, "0",
			"use free memory on another node before dropping the local node's page cache"))
	}
	return out
}

// planEngine is the engine whose advice host-wide settings follow.
func planEngine(in PlanInput) Engine {
	if len(in.Instances) == 0 {
		return Engine{Name: EnginePostgres}
	}
	return in.Instances[0].Engine
}

func thpSetting(file, want, current string, e Engine, a THPAdvice) Setting {
	s := sysfsSetting("/sys/kernel/mm/transparent_hugepage/"+file, want, current, a.Why)
	s.Formula = fmt.Sprintf("%s (advice for %s)", want, e)
	return s
}
