package apply

import (
	"fmt"
	"regexp"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/render"
)

// apply writes only what dbmem plans: the live kernel values of
// hostchange's allowlist (allow.go there: a journal's replay checks the
// same), and the boot words and unit settings below, each with a check of
// its value. Anything else (vm.min_free_kbytes, kernel.core_pattern,
// /sys/power/state, vm.nr_hugepages_mempolicy, ExecStartPre=...) is
// refused: dbmem has no model of what it does to the host, and a plan file
// can come from anywhere.

// bootRules are the kernel command line words plan renders.
var bootRules = map[string]hostchange.Rule{
	"hugepagesz":         hostchange.Matches(`^\d+[KMG]$`),
	"default_hugepagesz": hostchange.Matches(`^\d+[KMG]$`),
	"hugepages":          hostchange.AnyUint,
}

// systemdRules are the unit settings plan renders.
var systemdRules = map[string]hostchange.Rule{
	"LimitMEMLOCK":   hostchange.Matches(`^(?:infinity|\d+[KMGT]?)$`),
	"OOMScoreAdjust": hostchange.IntRange(-1000, 1000),
	// The OOM guard (dbmem check's systemd.* findings) and the service's
	// budget.
	"OOMPolicy":            hostchange.OneOf("continue", "stop", "kill"),
	"ManagedOOMPreference": hostchange.OneOf("none", "avoid", "omit"),
	"Restart":              hostchange.OneOf("no", "on-abnormal", "on-failure", "on-abort"),
	"MemoryHigh":           hostchange.Matches(`^(?:infinity|\d+[KMGT]?)$`),
	"MemoryMax":            hostchange.Matches(`^(?:infinity|\d+[KMGT]?)$`),
	"Environment":          hostchange.Matches(`^(?:PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj|PG_OOM_ADJUST_VALUE=-?\d{1,4})$`),
}

// engineDenied are database settings apply never writes, whatever a plan
// says: they run commands, load code, or move the server's files, which
// has nothing to do with memory.
var engineDenied = regexp.MustCompile(`(?i)(?:_commands?|_librar(?:y|ies)|_path|_file|_dir|_directory|_directories|_provider)$|` +
	`^(?:include.*|plugin_load.*|init_.*|datadir|basedir|socket|user|log_error|secure_file_priv|event_scheduler|local_infile)$`)

// allowed splits settings into those apply may write and refusals for the
// others: a name dbmem does not plan, or a value outside its rule.
func allowed(settings []finding.Setting) ([]finding.Setting, []Refusal) {
	var keep []finding.Setting
	var out []Refusal
	for _, s := range settings {
		if why := refuseSetting(s); why != "" {
			out = append(out, Refusal{Setting: string(s.Target) + ":" + s.Name + "=" + s.Value, Reason: why + ".",
				Fix: "apply writes only the settings 'dbmem plan' renders (docs/security.md lists them); change anything else by hand, knowing what it does."})
			continue
		}
		keep = append(keep, s)
	}
	return keep, out
}

func refuseSetting(s finding.Setting) string {
	switch s.Target {
	case finding.TargetSysctl:
		return hostchange.Allowed(hostchange.Sysctl(s.Name), s.Value)
	case finding.TargetSysfs:
		return hostchange.Allowed(hostchange.Setting{Target: hostchange.TargetSysfs, Name: render.SysfsPath(s.Name)}, s.Value)
	case finding.TargetKernelArgs:
		return byName(bootRules, s.Name, s.Value, "kernel command line word")
	case finding.TargetSystemd:
		return byName(systemdRules, s.Name, s.Value, "systemd setting")
	case finding.TargetPostgres, finding.TargetMySQL:
		if engineDenied.MatchString(s.Name) {
			return fmt.Sprintf("%s %s runs commands, loads code or names files, not memory", s.Target, s.Name)
		}
	}
	return ""
}

func byName(rules map[string]hostchange.Rule, name, value, what string) string {
	rule, ok := rules[name]
	if !ok {
		return fmt.Sprintf("%s %s is not one dbmem plans", what, name)
	}
	return rule(value)
}
