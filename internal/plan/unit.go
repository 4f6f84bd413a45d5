package plan

import (
	"fmt"
	"path"
	"regexp"
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
