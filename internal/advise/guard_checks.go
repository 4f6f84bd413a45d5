package advise

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// guardChecks judge what decides the databases' fate when memory runs
// out beyond the kernel's choice of a victim: OOMPolicy, systemd-oomd,
// earlyoom, panic_on_oom, oom_kill_allocating_task and io_uring's locked
// memory.
func guardChecks(h host, s *snapshot.Snapshot) []finding.Finding {
	g := s.OOMGuard
	if g == nil || len(s.Postgres)+len(s.MySQL) == 0 {
		return nil
	}
	var out []finding.Finding
	for _, in := range s.Postgres {
		if u := auditOf(g, snapshot.GuardKey("postgresql", in.DataDir)); u != nil {
			out = append(out, unitFindings(g, *u, PostgresSubject(in), false)...)
			out = append(out, checkIoUring(h, g, *u, in)...)
		}
	}
	for _, m := range s.MySQL {
		if u := auditOf(g, snapshot.GuardKey("mysql", m.DataDir)); u != nil {
			out = append(out, unitFindings(g, *u, MySQLSubject(m), true)...)
			out = append(out, checkEarlyoom(g, MySQLSubject(m), []string{m.Process.Comm, "mysqld", "mariadbd"})...)
		}
	}
	if len(s.Postgres) > 0 {
		out = append(out, checkEarlyoom(g, PostgresSubject(s.Postgres[0]), []string{"postgres"})...)
	}
	return append(out, kernelOOMChecks(g)...)
}

func auditOf(g *oomguard.Guard, key string) *oomguard.UnitAudit {
	for i := range g.Units {
		if g.Units[i].Subject == key {
			return &g.Units[i]
		}
	}
	return nil
}

func unitFindings(g *oomguard.Guard, u oomguard.UnitAudit, subject string, mysqlEngine bool) []finding.Finding {
	if u.Source == "not found" && !g.SystemdPID1 {
		return nil // no unit runs it (a container, pg_ctl by hand): nothing to judge
	}
	var out []finding.Finding
	if f, ok := checkOOMPolicy(u, subject, mysqlEngine); ok {
		out = append(out, f)
	}
	if f, ok := checkOomdManages(g, u, subject); ok {
		out = append(out, f)
	}
	return out
}

func guardEv(name string, v oomguard.Value) finding.Evidence {
	src := v.From
	if src == oomguard.FromDefault {
		src = "systemd's default (nothing sets it)"
	}
	return ev(name, v.Value, src)
}

// checkOOMPolicy: with OOMPolicy=stop one backend killed by the OOM killer
// stops the whole PostgreSQL service; a MySQL server is its unit's main
// process, so what matters there is whether Restart= brings it back.
func checkOOMPolicy(u oomguard.UnitAudit, subject string, mysqlEngine bool) (finding.Finding, bool) {
	pol, restart := u.Values["OOMPolicy"], u.Values["Restart"]
	if pol.Value != "stop" {
		return finding.Finding{}, false
	}
	f := finding.Finding{ID: "systemd.oom_policy_stop", Severity: finding.Warning, Subject: subject,
		Title:    fmt.Sprintf("%s has OOMPolicy=stop: one process killed by the OOM killer stops the whole service", u.Unit),
		Evidence: []finding.Evidence{guardEv("OOMPolicy", pol), guardEv("Restart", restart), ev("unit", u.Unit, u.Source)},
		Why: "systemd stops the unit when the kernel's OOM killer kills any of its processes (OOMPolicy=stop, the default): " +
			"for PostgreSQL a single backend's death then takes down the postmaster and every session, and the service stays down " +
			"unless Restart= starts it again. PostgreSQL restarts a killed backend on its own.",
		Fix: "Set OOMPolicy=continue for the unit (a drop-in: `dbmem plan` renders it, `dbmem apply` installs it), so the " +
			"postmaster handles the kill itself; then `systemctl daemon-reload`.",
		Settings: []finding.Setting{systemdSetting(u.Unit, "OOMPolicy", "continue", "continue (the postmaster restarts its backends itself)",
			"a backend killed by the OOM killer no longer stops the whole service")}}
	if mysqlEngine {
		f.Title = fmt.Sprintf("%s has OOMPolicy=stop and Restart=%s: an OOM kill of the server leaves it down", u.Unit, restart.Value)
		f.Why = "mysqld is the unit's main process: when the OOM killer kills it the service stops whatever OOMPolicy says, " +
			"and only Restart=on-abnormal (or on-failure) brings it back; OOMPolicy=stop also stops it when a helper process is killed."
		f.Fix = "Set Restart=on-abnormal for the unit, and keep the server's worst case below the RAM (mysql.worst_case)."
		f.Settings = []finding.Setting{systemdSetting(u.Unit, "OOMPolicy", "continue", "continue", "a helper process killed does not stop the server")}
		if restart.Value == "on-abnormal" || restart.Value == "on-failure" || restart.Value == "always" {
			f.Severity = finding.Notice
			f.Title = fmt.Sprintf("%s has OOMPolicy=stop; Restart=%s brings the server back after a kill", u.Unit, restart.Value)
		} else {
			f.Settings = append(f.Settings, systemdSetting(u.Unit, "Restart", "on-abnormal", "on-abnormal",
				"systemd starts the server again after it was killed by a signal (the OOM killer's SIGKILL)"))
		}
	}
	return f, true
}

// checkOomdManages: systemd-oomd runs and the database's slice (or unit)
// has ManagedOOMMemoryPressure=kill or ManagedOOMSwap=kill, and the unit
// does not ask to be avoided.
func checkOomdManages(g *oomguard.Guard, u oomguard.UnitAudit, subject string) (finding.Finding, bool) {
	if !g.Oomd.Running {
		return finding.Finding{}, false
	}
	var by []finding.Evidence
	for _, k := range []string{"ManagedOOMMemoryPressure", "ManagedOOMSwap"} {
		if v := u.Values[k]; v.Value == "kill" {
			by = append(by, guardEv(k+" (unit)", v))
		}
		if v := u.SliceValues[k]; v.Value == "kill" {
			by = append(by, guardEv(k+" ("+u.Slice+" and parents)", v))
		}
	}
	pref := u.Values["ManagedOOMPreference"]
	if len(by) == 0 || pref.Value == "avoid" || pref.Value == "omit" {
		return finding.Finding{}, false
	}
	ev := append(by, guardEv("ManagedOOMPreference", pref),
		ev("systemd-oomd", fmt.Sprintf("running (pid %d); SwapUsedLimit %s, DefaultMemoryPressureLimit %s for %s", g.Oomd.PID,
			g.Oomd.SwapUsedLimit.Value, g.Oomd.DefaultMemoryPressureLimit.Value, g.Oomd.DefaultMemoryPressureDurationSec.Value), "/proc, oomd.conf"))
	return finding.Finding{ID: "systemd.oomd_manages_database", Severity: finding.Warning, Subject: subject,
		Title:    fmt.Sprintf("systemd-oomd may kill %s: its slice is managed and the unit does not ask to be avoided", u.Unit),
		Evidence: ev,
		Why: "systemd-oomd kills a whole cgroup when memory pressure or swap use over its limits lasts: for a database every " +
			"process at once, with no line in the database's own log. Among the candidates it picks the biggest unless a unit says " +
			"ManagedOOMPreference=avoid (chosen last) or omit (never).",
		Fix: "ManagedOOMPreference=avoid for the database unit (`dbmem plan`), or run it in a slice without ManagedOOM*=kill.",
		Settings: []finding.Setting{systemdSetting(u.Unit, "ManagedOOMPreference", "avoid", "avoid (systemd-oomd runs and manages the slice)",
			"systemd-oomd kills other cgroups of the slice first")}}, true
}

// checkEarlyoom: earlyoom runs and its --avoid list does not name the
// database's processes (it matches the process name).
func checkEarlyoom(g *oomguard.Guard, subject string, comms []string) []finding.Finding {
	e := g.Earlyoom
	if !e.Running {
		return nil
	}
	var bad []finding.Evidence
	for _, list := range []string{e.Avoid, e.Ignore} {
		if list == "" {
			continue
		}
		re, err := regexp.Compile(list)
		if err != nil {
			bad = append(bad, ev("pattern not read", list, "Go's regexp (RE2) cannot compile it: "+err.Error()+"; taken as avoiding nothing"))
			continue
		}
		if matchesAny(re, comms) {
			return nil
		}
	}
	f := finding.Finding{ID: "earlyoom.not_avoiding_database", Severity: finding.Warning, Subject: subject,
		Title: fmt.Sprintf("earlyoom runs and would kill %s: its --avoid list does not name it", comms[0]),
		Evidence: []finding.Evidence{ev("earlyoom", fmt.Sprintf("running (pid %d): %s", e.PID, strings.Join(e.Args, " ")), cmp.Or(e.ArgsFrom, "/proc")),
			ev("--avoid", cmp.Or(e.Avoid, "(none)"), cmp.Or(e.ArgsFrom, "/proc")), ev("limits", "-m "+e.MemPercent+" -s "+e.SwapPercent,
				"earlyoom's SIGTERM limits (default 10% of RAM available and of swap free)")},
		Why: "earlyoom sends SIGTERM, then SIGKILL, to the process with the highest oom_score once available memory and free swap " +
			"are both under its limits, before the kernel would act: the database is usually the biggest process.",
		Fix: "Add the database to earlyoom's --avoid (EARLYOOM_ARGS in /etc/default/earlyoom): --avoid '^(postgres|mysqld|mariadbd)$' " +
			"(kept when something else can be killed), and size the database so the host does not reach the limits."}
	if e.Prefer != "" {
		f.Evidence = append(f.Evidence, ev("--prefer", e.Prefer, cmp.Or(e.ArgsFrom, "/proc")))
	}
	f.Evidence = append(f.Evidence, bad...)
	return []finding.Finding{f}
}

func matchesAny(re *regexp.Regexp, comms []string) bool {
	for _, c := range comms {
		if c != "" && re.MatchString(c) {
			return true
		}
	}
	return false
}

// kernelOOMChecks: panic_on_oom on a database host brings the machine
// down instead of killing one process; oom_kill_allocating_task kills
// whoever asked (a random backend), not the biggest.
func kernelOOMChecks(g *oomguard.Guard) []finding.Finding {
	var out []finding.Finding
	if p := g.PanicOnOOM; p != nil && *p != 0 {
		out = append(out, finding.Finding{ID: "kernel.panic_on_oom", Severity: finding.Critical, Subject: "host",
			Title:    fmt.Sprintf("vm.panic_on_oom=%d: the host panics on out of memory, taking every database down", *p),
			Evidence: []finding.Evidence{ev("vm.panic_on_oom", fmt.Sprint(*p), "/proc/sys")},
			Why: "With panic_on_oom 1 (a global OOM) or 2 (any OOM, memory cgroups included) the kernel panics instead of killing a " +
				"process: the machine stops, every database with it, and restarts only if kernel.panic is set.",
			Fix: "vm.panic_on_oom = 0 on a database host (`dbmem plan`).",
			Settings: []finding.Setting{sysctlSetting("vm.panic_on_oom", "0", fmt.Sprint(*p), "0 (kill a process, do not panic)",
				"one process killed is better than the whole host down")}})
	}
	if a := g.OOMKillAllocatingTask; a != nil && *a != 0 {
		out = append(out, finding.Finding{ID: "kernel.oom_kill_allocating_task", Severity: finding.Notice, Subject: "host",
			Title:    "vm.oom_kill_allocating_task=1: the OOM killer kills whichever process asked for memory, not the biggest",
			Evidence: []finding.Evidence{ev("vm.oom_kill_allocating_task", fmt.Sprint(*a), "/proc/sys")},
			Why: "The process that happens to allocate when memory runs out is killed, even a small one; for PostgreSQL any backend " +
				"(or the checkpointer) killed restarts the whole instance, while the real consumer keeps running.",
			Fix: "vm.oom_kill_allocating_task = 0 (`dbmem plan`).",
			Settings: []finding.Setting{sysctlSetting("vm.oom_kill_allocating_task", "0", fmt.Sprint(*a), "0 (kill the biggest)",
				"the OOM killer picks the process holding the most memory")}})
	}
	return out
}
