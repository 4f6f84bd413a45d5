package plan

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/sdunit"
	"github.com/dbmem/dbmem/internal/unitname"
)

// serviceUnit is the systemd unit that really runs a postmaster, found
// from its cgroup (/proc/PID/cgroup): the deepest .service on its path
// that starts PostgreSQL. noUnit says why there is none (a pg_ctl start
// in a login session, in another service, or no systemd at all): the
// plan then writes no drop-in. Without a readable cgroup the packaged
// name is kept, as check names it.
func serviceUnit(fs linux.FS, pg *postgres.Instance, given string) (unit, noUnit string) {
	if given != "" {
		return given, ""
	}
	b, err := fs.ReadFile(fs.ProcPath(strconv.Itoa(pg.PostmasterPID), "cgroup"))
	cg, ok := systemdCgroup(string(b))
	if err != nil || !ok {
		return advise.PostgresUnit(pg), ""
	}
	svc := deepestService(cg)
	switch {
	case svc != "" && runsPostgres(fs, svc):
		return svc, ""
	case svc != "":
		return "", fmt.Sprintf("its cgroup is %s, the unit %s, which does not start PostgreSQL (it was started by hand from there, with pg_ctl)", cg, svc)
	case strings.HasSuffix(cg, ".scope"):
		return "", fmt.Sprintf("its cgroup is %s, a login session, not a service unit (it was started with pg_ctl)", cg)
	}
	return "", fmt.Sprintf("its cgroup is %s: no service unit runs it (started with pg_ctl, or systemd does not run this host)", cg)
}

// systemdCgroup is the postmaster's path in systemd's hierarchy: the
// unified line (0::) on cgroup v2, name=systemd on v1.
func systemdCgroup(text string) (string, bool) {
	var unified string
	var found bool
	for _, l := range strings.Split(text, "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "name=systemd" {
			return parts[2], true
		}
		if parts[0] == "0" && parts[1] == "" {
			unified, found = parts[2], true
		}
	}
	return unified, found
}

// deepestService is the last .service component of a cgroup path.
func deepestService(cg string) string {
	comps := strings.Split(cg, "/")
	for i := len(comps) - 1; i >= 0; i-- {
		if strings.HasSuffix(comps[i], ".service") {
			return comps[i]
		}
	}
	return ""
}

// runsPostgres: the unit is named for PostgreSQL, or its ExecStart runs
// postgres, pg_ctl or pg_ctlcluster.
func runsPostgres(fs linux.FS, unit string) bool {
	name := strings.ToLower(unit)
	if strings.Contains(name, "postgres") || strings.HasPrefix(name, "pg") {
		return true
	}
	u, err := sdunit.Resolve(fs.Root, unit)
	if err != nil {
		return false
	}
	a, ok := u.Get("ExecStart")
	if !ok {
		return false
	}
	for _, f := range strings.Fields(a.Value) {
		switch path.Base(strings.TrimLeft(f, "-@+!:")) {
		case "postgres", "postmaster", "pg_ctl", "pg_ctlcluster":
			return true
		}
	}
	return false
}

// stoppedUnit is the unit of a stopped server: given, or the packaged
// name when the directory follows a package's layout; else none.
func stoppedUnit(dir, given string) (unit, noUnit string) {
	if given != "" {
		return given, ""
	}
	if u, ok := unitname.PostgresPackaged("", dir); ok {
		return u, ""
	}
	if u, ok := unitname.PostgresPackaged(path.Join(dir, "postgresql.conf"), ""); ok {
		return u, ""
	}
	return "", fmt.Sprintf("%s is not in a packaged layout (Debian's, PGDG's), so no service unit is known to start it; give --unit if one does", dir)
}

// oneOfMany says how a plan limited to one instance counts the others in
// the host-wide settings.
func oneOfMany(limit string, others int) string {
	return fmt.Sprintf("%s plans one instance; %d other database instance(s) run here. The host-wide settings count them as they run now: "+
		"vm.nr_hugepages keeps the huge pages they hold (\"in use by others\"), never their own planned need; vm.overcommit_ratio and the "+
		"budget's limit are sized against the host's RAM with their shared memory and Committed_AS as measured. Their own settings are not "+
		"planned: plan without %s to plan them all together", limit, others, strings.Fields(limit)[0])
}

var debianConf = regexp.MustCompile(`^/etc/postgresql/([0-9.]+)/([^/ ]+)/postgresql\.conf$`)

// ctlCommand restarts a cluster without a unit: Debian's pg_ctlcluster
// for a cluster of its layout (pg_ctl -D would not find the
// configuration in /etc/postgresql), else pg_ctl -D on the directory that
// holds postgresql.conf.
func ctlCommand(configFile, dataDir string) string {
	if m := debianConf.FindStringSubmatch(configFile); m != nil {
		return "pg_ctlcluster " + m[1] + " " + m[2]
	}
	dir := dataDir
	if configFile != "" && path.Dir(configFile) != dataDir {
		dir = path.Dir(configFile) // its data_directory points at the data
	}
	return "pg_ctl -D " + shellQuote(dir)
}

// shellQuote quotes a path for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
