package advise

import (
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/unitname"
)

// PostgresUnit guesses the systemd unit that runs an instance: the cgroup's
// service when it is one, else the distribution's naming for the
// configuration file or data directory (Debian postgresql@15-main, PGDG RPM postgresql-15), else
// postgresql.service.
func PostgresUnit(in *postgres.Instance) string {
	if in.Cgroup != nil && strings.HasSuffix(in.Cgroup.Path, ".service") {
		return path.Base(in.Cgroup.Path)
	}
	return unitname.Postgres(in.Settings.String("config_file"), in.DataDir)
}

// oomSettings protect the postmaster and leave its children killable, as
// the PostgreSQL documentation (Linux Memory Overcommit) describes.
func oomSettings(unit string) []finding.Setting {
	return []finding.Setting{
		systemdSetting(unit, "OOMScoreAdjust", "-1000", "-1000 (PostgreSQL documentation)",
			"the OOM killer never picks the postmaster, whose death takes the whole instance down"),
		systemdSetting(unit, "Environment", "PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj", "file each child writes at fork",
			"children reset their own oom_score_adj, so a runaway backend stays the victim"),
		systemdSetting(unit, "Environment", "PG_OOM_ADJUST_VALUE=0", "0: children as killable as any process",
			"value the children write"),
	}
}
