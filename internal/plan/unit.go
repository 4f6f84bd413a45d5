package plan

import (
	"fmt"
	"strings"
)

// unitOr is the unit given with --unit, else the one the instance's
// cgroup or layout gives (postgres.RunningUnit, postgres.StoppedUnit).
func (r Request) unitOr(unit, noUnit string) (string, string) {
	if r.Unit != "" {
		return r.Unit, ""
	}
	return unit, noUnit
}

// oneOfMany says how a plan limited to one instance counts the others in
// the host-wide settings.
func oneOfMany(limit string, others int) string {
	return fmt.Sprintf("%s plans one instance; %d other database instance(s) run here. The host-wide settings count them as they run now: "+
		"vm.nr_hugepages keeps the huge pages they hold (\"in use by others\"), never their own planned need; vm.overcommit_ratio and the "+
		"budget's limit are sized against the host's RAM with their shared memory and Committed_AS as measured. Their own settings are not "+
		"planned: plan without %s to plan them all together", limit, others, strings.Fields(limit)[0])
}
