package plan

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// MySQLWhatIf is a MySQL/MariaDB server on a what-if host.
type MySQLWhatIf struct {
	Flavor       mysql.Flavor
	Major, Minor int
}

// ParseMySQLVersion reads "10.11", "mariadb-10.4", "mysql 8.0" or "5.7":
// without a name, a major version of 10 or more is MariaDB (MySQL went
// from 5.7 to 8.0), below it MySQL.
func ParseMySQLVersion(s string) (MySQLWhatIf, error) {
	v := strings.ToLower(strings.TrimSpace(s))
	var w MySQLWhatIf
	for _, f := range []mysql.Flavor{mysql.MariaDB, mysql.MySQL} {
		if rest, ok := strings.CutPrefix(v, string(f)); ok {
			w.Flavor, v = f, strings.TrimLeft(rest, " -_")
		}
	}
	major, minor, _ := strings.Cut(v, ".")
	var err1, err2 error
	w.Major, err1 = strconv.Atoi(major)
	if minor != "" {
		minor, _, _ = strings.Cut(minor, ".")
		w.Minor, err2 = strconv.Atoi(minor)
	}
	if err1 != nil || err2 != nil || w.Major <= 0 {
		return w, usage("MySQL/MariaDB version %q: want e.g. 10.11, mariadb-10.4, mysql-8.0 or 5.7", s)
	}
	if w.Flavor == "" {
		w.Flavor = mysql.MySQL
		if w.Major >= 10 {
			w.Flavor = mysql.MariaDB
		}
	}
	return w, nil
}

// addMySQL plans the snapshot's MySQL/MariaDB servers (those on
// --mysql-port when given; none when only --pg-port chose an instance),
// with MySQLChanges applied.
func addMySQL(in *advise.PlanInput, r Request, s *snapshot.Snapshot, size uint64) error {
	if r.Port != 0 && r.MySQLPort == 0 {
		if len(r.MySQLChanges) > 0 {
			return usage("MySQL/MariaDB variables to plan, but --pg-port (or PGPORT) %d chose a PostgreSQL instance: give --mysql-port too", r.Port)
		}
		if len(s.MySQL) > 0 {
			in.Notes = append(in.Notes, fmt.Sprintf("MySQL/MariaDB servers not planned: --pg-port (or PGPORT) %d chose one PostgreSQL instance; their huge pages in use count as others'", r.Port))
		}
		return nil
	}
	var chosen []*mysql.Instance
	for _, my := range s.MySQL {
		if r.MySQLPort == 0 || mysqlPort(my) == r.MySQLPort {
			chosen = append(chosen, my)
		}
	}
	if r.MySQLPort != 0 && len(chosen) == 0 {
		return usage("no running MySQL/MariaDB server on port %d", r.MySQLPort)
	}
	if len(r.MySQLChanges) > 0 && len(chosen) == 0 {
		return usage("MySQL/MariaDB variables to plan, but no MySQL/MariaDB server runs here (a what-if host: --ram and --mysql-version)")
	}
	if len(r.MySQLChanges) > 0 && len(chosen) > 1 {
		return usage("%d MySQL/MariaDB servers run here: choose the one the changes are for with --mysql-port", len(chosen))
	}
	for _, my := range chosen {
		pi := runningMySQL(my, r.MySQLChanges, size, hostBasePage(s))
		mysqlBudgetHost(r, my, &pi)
		if v := r.Trust.Vouch(my.Owners, "mysql"); v.Known && !v.Trusted {
			pi.Untrusted = v.Why
		}
		in.Instances = append(in.Instances, pi)
	}
	return nil
}

func mysqlPort(in *mysql.Instance) int {
	if in.Port > 0 {
		return in.Port
	}
	return mysql.DefaultPort
}

// runningMySQL plans a running server, or, with changes, the same server
// configured so: its need then comes from the settings (the mappings
// measured now are of the old sizes), the pages it holds now from the
// mappings.
func runningMySQL(my *mysql.Instance, changes map[string]string, size, base uint64) advise.PlannedInstance {
	if len(changes) == 0 {
		return advise.PlanMySQL(my, size, base)
	}
	view := *my
	view.Settings = overlayMySQL(my.Settings, changes)
	view.Memory.BufferPool, view.Memory.HugeMappings = nil, nil
	pi := advise.PlanMySQL(&view, size, base)
	now := advise.PlanMySQL(my, size, base)
	pi.HeldPages, pi.SharedIn4KBytes = now.HeldPages, now.SharedIn4KBytes
	pi.Changes = changes
	for name := range changes {
		pi.Current[name], _ = my.Settings.String(name)
	}
	return pi
}

// whatIfMySQL is a server of the given version with its flavor's defaults
// and the changes.
func whatIfMySQL(w MySQLWhatIf, changes map[string]string, size uint64) advise.PlannedInstance {
	unit := map[mysql.Flavor]string{mysql.MariaDB: "mariadb.service", mysql.MySQL: "mysql.service"}[w.Flavor] // Debian's packages
	my := &mysql.Instance{Flavor: w.Flavor, Major: w.Major, Minor: w.Minor, Unit: unit,
		Version: fmt.Sprintf("%d.%d", w.Major, w.Minor), Settings: overlayMySQL(mysql.Defaults(w.Flavor), changes)}
	pi := advise.PlanMySQL(my, size, basePage())
	pi.Subject = fmt.Sprintf("%s %d.%d (what-if)", w.Flavor, w.Major, w.Minor)
	pi.MySQLBudget.Subject = pi.Subject
	pi.Need.Source = pi.Subject + ": " + advise.MySQLNeedSource(pi.Need)
	pi.Changes = changes
	return pi
}

// overlayMySQL returns base with the changes over it, names normalised
// (innodb-buffer-pool-size and innodb_buffer_pool_size are one variable).
func overlayMySQL(base mysql.Settings, changes map[string]string) mysql.Settings {
	out := mysql.Settings{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range changes {
		out[mysql.NormalizeName(k)] = mysql.Setting{Value: v, Source: mysql.FromCommandLine}
	}
	return out
}

func basePage() uint64 { return uint64(os.Getpagesize()) }

// hostBasePage is the snapshot host's base page size (kernel.shmall counts
// in it): the SysV reader's, taken from a segment in base pages, else this
// process's.
func hostBasePage(s *snapshot.Snapshot) uint64 {
	if s != nil && s.SysV != nil && s.SysV.Kernel.PageSizeBytes > 0 {
		return s.SysV.Kernel.PageSizeBytes
	}
	return basePage()
}

// mysqlBudgetHost completes a running server's budget input with what
// the host measures: the private memory of every other process, the
// server's cgroup limit. --no-budget drops the budget.
func mysqlBudgetHost(r Request, my *mysql.Instance, pi *advise.PlannedInstance) {
	if r.Budget.Off || pi.MySQLBudget == nil {
		pi.MySQLBudget = nil
		return
	}
	h := &pi.MySQLBudget.Host
	h.CoHostedBytes, h.CoHostedFrom = othersPrivate(r.fs(), map[int]bool{my.PID: true})
	if cg := my.Cgroup; cg != nil && cg.Memory != nil && cg.Memory.LimitBytes != nil {
		h.CgroupLimitBytes, h.CgroupPath = cg.Memory.LimitBytes, cg.Memory.LimitPath
	}
}
