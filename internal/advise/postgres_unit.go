package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
)

// oomSettings protect the postmaster and leave its children killable, as
// the PostgreSQL documentation (Linux Memory Overcommit) describes; none
// when no unit runs the instance (postgres.RunningUnit): no drop-in for
// another unit.
func oomSettings(unit string) []finding.Setting {
	if unit == "" {
		return nil
	}
	return []finding.Setting{
		systemdSetting(unit, "OOMScoreAdjust", "-1000", "-1000 (PostgreSQL documentation)",
			"the OOM killer never picks the postmaster, whose death takes the whole instance down"),
		systemdSetting(unit, "Environment", "PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj", "file each child writes at fork",
			"children reset their own oom_score_adj, so a runaway backend stays the victim"),
		systemdSetting(unit, "Environment", "PG_OOM_ADJUST_VALUE=0", "0: children as killable as any process",
			"value the children write"),
	}
}

// childOOMSettings are oomSettings without the postmaster's own.
func childOOMSettings(unit string) []finding.Setting {
	if s := oomSettings(unit); len(s) > 0 {
		return s[1:]
	}
	return nil
}

// unitless turns an OOM finding's fix into the words for an instance no
// service unit runs (postgres.RunningUnit says why): no drop-in, but the
// start that gives the same protection, as plan says.
func unitless(in *postgres.Instance, f finding.Finding) finding.Finding {
	if in.Unit != "" {
		return f
	}
	f.Evidence = append(f.Evidence, ev("systemd unit", "none: "+in.NoUnit, fmt.Sprintf("/proc/%d/cgroup", in.PostmasterPID)))
	f.Fix = "No service unit runs it, so no drop-in: start it so that the postmaster has oom_score_adj -1000 and its children 0 " +
		"(pg_ctl: `" + startProtected(postgres.Ctl(in.Settings.String("config_file"), in.DataDir), in.DataDir) +
		"`; a container: its runtime's oom_score_adj and environment), or run it under a service unit."
	return f
}
