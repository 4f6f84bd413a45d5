package advise

import (
	"fmt"
	"github.com/dbmem/dbmem/internal/finding"
	"strings"
)

// forInstance names the instance each of its settings is for.
func forInstance(pi PlannedInstance, ss []finding.Setting) []finding.Setting {
	for i := range ss {
		ss[i].Instance = pi.Subject
	}
	return ss
}

// shellQuote quotes a path for a POSIX shell: a data directory is the
// server's to name, and the words are meant to be pasted.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
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
	ctl := pi.Ctl
	if ctl == "" {
		ctl = "pg_ctl -D " + shellQuote(pi.DataDir)
	}
	as := ""
	if strings.HasPrefix(ctl, "pg_ctl ") {
		as = fmt.Sprintf(`runuser -u "$(stat -c %%U %s)" -- `, shellQuote(pi.DataDir))
	}
	return fmt.Sprintf("%s: %s, so no systemd drop-in is planned for it. Its PostgreSQL settings above go into its own "+
		"configuration (a file in its include_dir, or postgresql.conf: the lines of 'dbmem plan --format postgresql'); "+
		"then, as root: %s%s restart (huge_pages and the shared memory settings need the restart). "+
		"The OOM protection a unit would give (OOMScoreAdjust=-1000, children at 0) comes from starting it so: "+
		"echo -1000 > /proc/self/oom_score_adj; %senv PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj PG_OOM_ADJUST_VALUE=0 %s restart. "+
		"Or run it under a service unit, and plan again", pi.Subject, pi.NoUnit, as, ctl, as, ctl)
}
