package plan

import (
	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// guardSettings are the OOM guard's settings (advise.GuardSettings) the
// plan does not already hold. The service's MemoryHigh/MemoryMax come
// from its budget (advise.ServiceMemorySettings) once internal/budget
// computes one; until then none is planned.
func guardSettings(s *snapshot.Snapshot, in advise.PlanInput, have []advise.Setting) []advise.Setting {
	planned := map[string]bool{}
	for _, x := range have {
		planned[string(x.Target)+" "+x.Unit+" "+x.Name] = true
	}
	subjects := map[string]bool{}
	for _, pi := range in.Instances {
		if pi.NoUnit == "" { // no unit runs it: no drop-in for another unit (unit.go)
			subjects[pi.Subject] = true
		}
	}
	var out []advise.Setting
	for _, x := range advise.GuardSettingsFor(s, subjects) {
		if !planned[string(x.Target)+" "+x.Unit+" "+x.Name] {
			out = append(out, x)
		}
	}
	return out
}

// Result is the plan of in, with the OOM guard's settings of the host s
// reads (nil for a what-if).
func Result(in advise.PlanInput, s *snapshot.Snapshot) advise.PlanResult {
	res := advise.Plan(in)
	res.Settings = append(res.Settings, guardSettings(s, in, res.Settings)...)
	return res
}
