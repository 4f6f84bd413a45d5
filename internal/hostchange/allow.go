package hostchange

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// The kernel settings dbmem changes, with what each value must be: those
// `dbmem plan` renders and apply writes, a superset of what the lab (the
// huge page pool, strict overcommit), the huge page pool of benchmarks and
// the tests (the pools, vm.hugetlb_shm_group, vm.swappiness) change. A
// journal naming anything else is not acted on, and apply refuses it.

// SysctlRules are the sysctls, by name.
var SysctlRules = map[string]Rule{
	"vm.nr_hugepages":             AnyUint, // apply's pool checks and Replay's reserve bound it
	"vm.nr_overcommit_hugepages":  AnyUint,
	"vm.overcommit_memory":        OneOf("0", "1", "2"),
	"vm.overcommit_ratio":         UintRange(0, 100),
	"vm.overcommit_kbytes":        AnyUint,
	"vm.swappiness":               UintRange(0, 200),
	"vm.zone_reclaim_mode":        UintRange(0, 7),
	"vm.hugetlb_shm_group":        UintRange(0, 1<<32-2), // a group of /etc/group
	"vm.panic_on_oom":             OneOf("0"),            // plan only turns it off (kernel.panic_on_oom finding)
	"vm.oom_kill_allocating_task": OneOf("0"),
	"kernel.io_uring_disabled":    OneOf("0"), // io_method = io_uring needs it
	"kernel.shmmax":               AnyUint,    // only raised
	"kernel.shmall":               AnyUint,    // only raised
}

// SysfsRules are the files under /sys, by path relative to /sys; a nil
// rule means a word the file itself offers.
var SysfsRules = []struct {
	Re   *regexp.Regexp
	Rule Rule
}{
	{regexp.MustCompile(`^kernel/mm/transparent_hugepage/(?:enabled|defrag)$`), nil},
	{regexp.MustCompile(`^kernel/mm/hugepages/hugepages-\d+kB/nr_hugepages$`), AnyUint},
	{regexp.MustCompile(`^devices/system/node/node\d+/hugepages/hugepages-\d+kB/nr_hugepages$`), AnyUint},
}

// Allowed says why value is refused for s ("" when it passes its rule).
// A choice file's word is checked against the file by the caller.
func Allowed(s Setting, value string) string {
	switch s.Target {
	case TargetSysctl:
		rule, ok := SysctlRules[s.Name]
		if !ok {
			return fmt.Sprintf("sysctl %s is not one dbmem plans", s.Name)
		}
		return rule(value)
	case TargetSysfs:
		for _, r := range SysfsRules {
			if r.Re.MatchString(s.Name) {
				if r.Rule == nil {
					return ""
				}
				return r.Rule(value)
			}
		}
		return fmt.Sprintf("/sys/%s is not a file dbmem plans", s.Name)
	}
	return fmt.Sprintf("%q is not a kernel setting target (sysctl or sysfs)", s.Target)
}

// IsPool reports whether s sizes a huge page pool (persistent pages).
func IsPool(s Setting) bool {
	return s == Sysctl("vm.nr_hugepages") || s.Target == TargetSysfs && strings.HasSuffix(s.Name, "/nr_hugepages")
}

// Rule returns why a value is refused, or "".
type Rule func(v string) string

// AnyUint accepts a whole number.
func AnyUint(v string) string {
	if _, err := strconv.ParseUint(v, 10, 64); err != nil {
		return fmt.Sprintf("%q is not a whole number", v)
	}
	return ""
}

// UintRange accepts a whole number from lo to hi.
func UintRange(lo, hi uint64) Rule {
	return func(v string) string {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("%q is not a whole number from %d to %d", v, lo, hi)
		}
		return ""
	}
}

// IntRange accepts an integer from lo to hi.
func IntRange(lo, hi int64) Rule {
	return func(v string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("%q is not a whole number from %d to %d", v, lo, hi)
		}
		return ""
	}
}

// OneOf accepts one of words.
func OneOf(words ...string) Rule {
	return func(v string) string {
		for _, w := range words {
			if v == w {
				return ""
			}
		}
		return fmt.Sprintf("%q is not one of %s", v, strings.Join(words, ", "))
	}
}

// Matches accepts what the regular expression matches.
func Matches(expr string) Rule {
	re := regexp.MustCompile(expr)
	return func(v string) string {
		if !re.MatchString(v) {
			return fmt.Sprintf("%q is not a value dbmem plans (%s)", v, expr)
		}
		return ""
	}
}
