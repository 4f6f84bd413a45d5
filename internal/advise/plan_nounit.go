package advise

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
)

// forInstance names the instance each of its settings is for.
func forInstance(pi PlannedInstance, ss []finding.Setting) []finding.Setting {
	for i := range ss {
		ss[i].Instance = pi.Subject
	}
	return ss
}

// needTerm is an instance's term of the huge page sum, named: "666 for
// postgresql 15 :5432 (/var/lib/postgresql/15/main) (SHOW ...)".
func needTerm(pages uint64, pi PlannedInstance) string {
	if strings.HasPrefix(pi.Need.Source, pi.Subject) { // it names the instance already (MySQL)
		return fmt.Sprintf("%d for %s", pages, pi.Need.Source)
	}
	return fmt.Sprintf("%d for %s (%s)", pages, pi.Subject, pi.Need.Source)
}

// withoutUnit says how to apply the settings of an instance no service
// unit runs (started with pg_ctl): its configuration lines, the exact
// commands, and the OOM protection a drop-in would have given. No drop-in
// is planned: the unit its cgroup names does not start it, and on Debian
// postgresql.service is ExecStart=/bin/true.
func withoutUnit(pi PlannedInstance) string {
	if pi.Ctl == "" {
		pi.Ctl = postgres.Ctl("", pi.DataDir)
	}
	return fmt.Sprintf("%s: %s, so no systemd drop-in is planned for it. Its PostgreSQL settings above go into its own "+
		"configuration (a file in its include_dir, or postgresql.conf: the lines of 'dbmem plan --format postgresql'); "+
		"then, as root: %s%s restart (huge_pages and the shared memory settings need the restart). "+
		"The OOM protection a unit would give (OOMScoreAdjust=-1000, children at 0) comes from starting it so: %s. "+
		"Or run it under a service unit, and plan again", pi.Subject, pi.NoUnit, asOwner(pi.Ctl, pi.DataDir), pi.Ctl, startProtected(pi.Ctl, pi.DataDir))
}

// asOwner runs ctl as the data directory's owner (pg_ctl refuses root;
// pg_ctlcluster switches itself).
func asOwner(ctl, dataDir string) string {
	if strings.HasPrefix(ctl, "pg_ctl ") {
		return fmt.Sprintf(`runuser -u "$(stat -c %%U %s)" -- `, postgres.ShellQuote(dataDir))
	}
	return ""
}

// startProtected restarts a cluster no unit runs with the postmaster at
// oom_score_adj -1000 and its children at 0, as a unit's OOMScoreAdjust
// and PG_OOM_ADJUST_* would: the words of plan's note and check's fix.
func startProtected(ctl, dataDir string) string {
	return "echo -1000 > /proc/self/oom_score_adj; " + asOwner(ctl, dataDir) +
		"env PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj PG_OOM_ADJUST_VALUE=0 " + ctl + " restart"
}
