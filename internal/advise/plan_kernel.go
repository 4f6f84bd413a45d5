package advise

import (
	"fmt"
	"github.com/dbmem/dbmem/internal/finding"
	"strconv"
)

// kernelSettings are swappiness, THP and zone reclaim: none inside a
// container (the node's).
func kernelSettings(in PlanInput, r *PlanResult) []finding.Setting {
	if in.InContainer {
		return nil
	}
	var out []finding.Setting
	if in.Host.SwapBytes > 0 || in.Host.SwapUnknown != "" { // without swap, swappiness changes nothing
		out = append(out, sysctlSetting("vm.swappiness", strconv.Itoa(in.Options.Swappiness), in.current("vm.swappiness"),
			strconv.Itoa(in.Options.Swappiness)+" (database host: swap only as a last resort)",
			"swapping database memory out to keep page cache turns memory accesses into disk reads"))
	}
	out = append(out, thpSettings(in, r)...)
	if z := in.current("vm.zone_reclaim_mode"); in.Host.NUMANodes > 1 || (z != "" && z != "0") {
		out = append(out, sysctlSetting("vm.zone_reclaim_mode", "0", z, "0",
			"use free memory on another node before dropping the local node's page cache"))
	}
	return out
}

// thpSettings follow every engine present: nothing when the current value
// suits them all, a note and nothing when they disagree (MongoDB 8 beside
// PostgreSQL) or one's advice is unknown.
func thpSettings(in PlanInput, r *PlanResult) []finding.Setting {
	var engines []Engine
	for _, pi := range in.Instances {
		engines = append(engines, pi.Engine)
	}
	engines = append(engines, softwareEngines(in.Software)...)
	if len(engines) == 0 {
		engines = []Engine{{Name: finding.EnginePostgres}}
	}
	var thp [2]string
	if in.Host.Now != nil {
		thp = [2]string{in.Host.Now.THP.Enabled, in.Host.Now.THP.Defrag}
	}
	v := decideTHP(engines, thp[0])
	if thp[0] == "" { // a what-if: what every engine accepts
		v = decideTHP(engines, "always")
		if len(v.Unmet) == 0 {
			v.Want, v.Defrag = "always", engines[0].THP().Defrag
		}
	}
	switch {
	case len(v.Unmet) == 0 && v.Want == "":
		return nil
	case v.Want == "":
		r.Notes = append(r.Notes, fmt.Sprintf("transparent huge pages kept at %s: %s %s, but %s %s; the setting is host-wide",
			thp[0], engineNames(v.Unmet), thpAdvises(v.Unmet, v.Unmet[0].THP().Want), engineNames(v.Against), againstText(v.Against)))
		return nil
	}
	formula := fmt.Sprintf("%s (advice for %s)", v.Want, engineNames(engines))
	return []finding.Setting{thpSetting("enabled", v.Want, thp[0], formula, v.Why), thpSetting("defrag", v.Defrag, thp[1], formula, v.Why)}
}

func thpSetting(file, want, current, formula, why string) finding.Setting {
	s := sysfsSetting("/sys/kernel/mm/transparent_hugepage/"+file, want, current, why)
	s.Formula = formula
	return s
}
