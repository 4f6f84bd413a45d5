package plan

import (
	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// guardSettings are the OOM guard's settings (advise.GuardSettings) the
// plan does not already hold. The service's MemoryHigh/MemoryMax come
// from its budget (advise.ServiceMemorySettings) once internal/budget
// computes one; until then none is planned.
func guardSettings(s *snapshot.Snapshot, have []advise.Setting) []advise.Setting {
	planned := map[string]bool{}
	for _, x := range have {
		planned[string(x.Target)+" "+x.Unit+" "+x.Name] = true
	}
	var out []advise.Setting
	for _, x := range advise.GuardSettings(s) {
		if !planned[string(x.Target)+" "+x.Unit+" "+x.Name] {
			out = append(out, x)
		}
	}
	return out
}
