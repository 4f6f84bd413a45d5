package postmortem

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
)

// logPlan says where an instance's log files are: a directory and a file
// name pattern (newest matching files are read), or fixed files (newest
// first); Why explains an empty plan.
type logPlan struct {
	Kind     Kind
	Instance string
	Dir      string
	Match    *regexp.Regexp
	Files    []string
	// Rotations: also read Files' rotated copies (.1, .2.gz ...).
	Rotations bool
	Zone      string
	Why       string
	// Account is the server's: its logs are read only as it could.
	Account *linux.Account
}

// debianDataDir is Debian's layout: /var/lib/postgresql/<version>/<cluster>.
var debianDataDir = regexp.MustCompile(`^/var/lib/postgresql/([^/]+)/([^/]+)/?$`)

// planPostgres finds an instance's server log from its settings: with
// logging_collector, log_directory (relative to the data directory) and
// log_filename, in the format log_destination names (stderr first: only it
// holds memory context dumps); without it, Debian's
// /var/log/postgresql/postgresql-<version>-<cluster>.log.
func planPostgres(in *postgres.Instance) logPlan {
	s := in.Settings
	p := logPlan{Kind: KindPostgres, Instance: advise.PostgresSubject(in), Zone: s.String("log_timezone"), Account: in.Account}
	if on, _ := s.Bool("logging_collector"); on {
		return p.collector(in)
	}
	if m := debianDataDir.FindStringSubmatch(in.DataDir); m != nil {
		p.Files = []string{fmt.Sprintf("/var/log/postgresql/postgresql-%s-%s.log", m[1], m[2])}
		p.Rotations = true
		return p
	}
	p.Why = "logging_collector is off: the server's stderr goes wherever it was started to send it " +
		"(pg_ctl -l FILE, or the service's journal), which /proc does not show; give the file with --db-log"
	return p
}

func (p logPlan) collector(in *postgres.Instance) logPlan {
	s := in.Settings
	dir := s.String("log_directory")
	if dir == "" {
		dir = "log"
		if in.Major > 0 && in.Major < 10 {
			dir = "pg_log"
		}
	}
	if !path.IsAbs(dir) {
		dir = path.Join(in.DataDir, dir)
	}
	name := s.String("log_filename")
	name = cmp.Or(name, "postgresql-%Y-%m-%d_%H%M%S.log")
	dest := pickDestination(s.String("log_destination"))
	if dest == "" {
		p.Why = fmt.Sprintf("log_destination = %q writes no file dbmem can read (syslog or eventlog): give the log with --db-log",
			s.String("log_destination"))
		return p
	}
	re, err := strftimeRegexp(logFileFor(name, dest))
	if err != nil {
		p.Why = err.Error()
		return p
	}
	p.Dir, p.Match = dir, re
	return p
}

// pickDestination prefers stderr, then csvlog, then jsonlog.
func pickDestination(v string) string {
	if strings.TrimSpace(v) == "" {
		return "stderr"
	}
	have := map[string]bool{}
	for _, d := range strings.Split(v, ",") {
		have[strings.ToLower(strings.TrimSpace(d))] = true
	}
	for _, d := range []string{"stderr", "csvlog", "jsonlog"} {
		if have[d] {
			return d
		}
	}
	return ""
}

// MySQLSubject names a MySQL/MariaDB instance.
func MySQLSubject(in *mysql.Instance) string {
	return fmt.Sprintf("%s pid %d (%s)", in.Flavor, in.PID, in.DataDir)
}

// planMySQL finds the error log from log_error (relative to datadir).
func planMySQL(in *mysql.Instance) logPlan {
	p := logPlan{Kind: KindMySQL, Instance: MySQLSubject(in), Rotations: true, Account: in.Account}
	v, _ := in.Settings.String("log_error")
	v = strings.TrimSpace(v)
	switch {
	case v == "" || v == "stderr":
		p.Why = "log_error is not set: the server logs to stderr (the service's journal); give the log with --db-log"
	case path.IsAbs(v):
		p.Files = []string{v}
	case in.DataDir != "":
		p.Files = []string{path.Join(in.DataDir, v)}
	default:
		p.Why = fmt.Sprintf("log_error = %q is relative and the data directory is unknown", v)
	}
	return p
}
