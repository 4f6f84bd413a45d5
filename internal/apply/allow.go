package apply

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/render"
)

// apply writes only what dbmem plans: the live kernel values, boot words
// and unit settings below, each with a check of its value. Anything else
// (vm.min_free_kbytes, kernel.core_pattern, /sys/power/state,
// vm.nr_hugepages_mempolicy, ExecStartPre=...) is refused: dbmem has no
// model of what it does to the host, and a plan file can come from
// anywhere.

// sysctlRules are the sysctls plan renders, with what each value must be.
var sysctlRules = map[string]valueRule{
	"vm.nr_hugepages":             anyUint, // the pool checks (checkSteps) bound it
	"vm.nr_overcommit_hugepages":  anyUint, // surplusRefusals bounds it
	"vm.overcommit_memory":        oneOf("0", "1", "2"),
	"vm.overcommit_ratio":         uintRange(0, 100),
	"vm.overcommit_kbytes":        anyUint,
	"vm.swappiness":               uintRange(0, 200),
	"vm.zone_reclaim_mode":        uintRange(0, 7),
	"vm.hugetlb_shm_group":        uintRange(0, 1<<32-2), // hostGroupRefusal checks the group
	"vm.panic_on_oom":             oneOf("0"),            // plan only turns it off
	"vm.oom_kill_allocating_task": oneOf("0"),
	"kernel.io_uring_disabled":    oneOf("0"),
	"kernel.shmmax":               anyUint, // raiseOnly
	"kernel.shmall":               anyUint, // raiseOnly
}

// sysfsRules are the /sys files plan renders, by path relative to /sys.
var sysfsRules = []struct {
	re   *regexp.Regexp
	rule valueRule
}{
	{regexp.MustCompile(`^kernel/mm/transparent_hugepage/(?:enabled|defrag)$`), nil}, // a word the file lists
	{regexp.MustCompile(`^kernel/mm/hugepages/hugepages-\d+kB/nr_hugepages$`), anyUint},
	{regexp.MustCompile(`^devices/system/node/node\d+/hugepages/hugepages-\d+kB/nr_hugepages$`), anyUint},
}

// bootRules are the kernel command line words plan renders.
var bootRules = map[string]valueRule{
	"hugepagesz":         matches(`^\d+[KMG]$`),
	"default_hugepagesz": matches(`^\d+[KMG]$`),
	"hugepages":          anyUint,
}

// systemdRules are the unit settings plan renders.
var systemdRules = map[string]valueRule{
	"LimitMEMLOCK":   matches(`^(?:infinity|\d+[KMGT]?)$`),
	"OOMScoreAdjust": intRange(-1000, 1000),
	// The OOM guard (dbmem check's systemd.* findings) and the service's
	// budget.
	"OOMPolicy":            oneOf("continue", "stop", "kill"),
	"ManagedOOMPreference": oneOf("none", "avoid", "omit"),
	"Restart":              oneOf("no", "on-abnormal", "on-failure", "on-abort"),
	"MemoryHigh":           matches(`^(?:infinity|\d+[KMGT]?)$`),
	"MemoryMax":            matches(`^(?:infinity|\d+[KMGT]?)$`),
	"Environment":          matches(`^(?:PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj|PG_OOM_ADJUST_VALUE=-?\d{1,4})$`),
}

// engineDenied are database settings apply never writes, whatever a plan
// says: they run commands, load code, or move the server's files, which
// has nothing to do with memory.
var engineDenied = regexp.MustCompile(`(?i)(?:_commands?|_librar(?:y|ies)|_path|_file|_dir|_directory|_directories|_provider)$|` +
	`^(?:include.*|plugin_load.*|init_.*|datadir|basedir|socket|user|log_error|secure_file_priv|event_scheduler|local_infile)$`)

// valueRule returns why a value is refused, or "".
type valueRule func(v string) string

func anyUint(v string) string {
	if _, err := strconv.ParseUint(v, 10, 64); err != nil {
		return fmt.Sprintf("%q is not a whole number", v)
	}
	return ""
}

func uintRange(lo, hi uint64) valueRule {
	return func(v string) string {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("%q is not a whole number from %d to %d", v, lo, hi)
		}
		return ""
	}
}

func intRange(lo, hi int64) valueRule {
	return func(v string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("%q is not a whole number from %d to %d", v, lo, hi)
		}
		return ""
	}
}

func oneOf(words ...string) valueRule {
	return func(v string) string {
		for _, w := range words {
			if v == w {
				return ""
			}
		}
		return fmt.Sprintf("%q is not one of %s", v, strings.Join(words, ", "))
	}
}

func matches(expr string) valueRule {
	re := regexp.MustCompile(expr)
	return func(v string) string {
		if !re.MatchString(v) {
			return fmt.Sprintf("%q is not a value dbmem plans (%s)", v, expr)
		}
		return ""
	}
}

// allowed splits settings into those apply may write and refusals for the
// others: a name dbmem does not plan, or a value outside its rule.
func allowed(settings []advise.Setting) ([]advise.Setting, []Refusal) {
	var keep []advise.Setting
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

func refuseSetting(s advise.Setting) string {
	switch s.Target {
	case advise.TargetSysctl:
		return byName(sysctlRules, s.Name, s.Value, "sysctl")
	case advise.TargetSysfs:
		p := render.SysfsPath(s.Name)
		for _, r := range sysfsRules {
			if r.re.MatchString(p) {
				if r.rule == nil {
					return ""
				}
				return r.rule(s.Value)
			}
		}
		return fmt.Sprintf("/sys/%s is not a file dbmem plans", p)
	case advise.TargetKernelArgs:
		return byName(bootRules, s.Name, s.Value, "kernel command line word")
	case advise.TargetSystemd:
		return byName(systemdRules, s.Name, s.Value, "systemd setting")
	case advise.TargetPostgres, advise.TargetMySQL:
		if engineDenied.MatchString(s.Name) {
			return fmt.Sprintf("%s %s runs commands, loads code or names files, not memory", s.Target, s.Name)
		}
	}
	return ""
}

func byName(rules map[string]valueRule, name, value, what string) string {
	rule, ok := rules[name]
	if !ok {
		return fmt.Sprintf("%s %s is not one dbmem plans", what, name)
	}
	return rule(value)
}
