package advise

import (
	"fmt"
	"strconv"
)

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
