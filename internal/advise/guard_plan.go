package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// GuardSettings are the settings that fix the OOM guard's findings on s
// (OOMPolicy=continue, ManagedOOMPreference=avoid, Restart=on-abnormal,
// LimitMEMLOCK for io_uring, panic_on_oom and oom_kill_allocating_task
// 0, io_uring_disabled 0), for `dbmem plan` to render; each once.
func GuardSettings(s *snapshot.Snapshot) []finding.Setting { return GuardSettingsFor(s, nil) }

// GuardSettingsFor is GuardSettings for the instances named (their
// subjects, as PostgresSubject and MySQLSubject name them) and the host;
// nil names every instance.
func GuardSettingsFor(s *snapshot.Snapshot, subjects map[string]bool) []finding.Setting {
	if s == nil || s.OOMGuard == nil {
		return nil
	}
	var out []finding.Setting
	seen := map[string]bool{}
	for _, f := range guardChecks(host{Host: s.Host}, s) {
		if subjects != nil && f.Subject != "host" && !subjects[f.Subject] {
			continue
		}
		for _, st := range f.Settings {
			key := string(st.Target) + " " + st.Unit + " " + st.Name
			if !seen[key] {
				seen[key] = true
				out = append(out, st)
			}
		}
	}
	return out
}

// ServiceBudget is the memory a database's service may use, computed by
// its budget (internal/budget): MemoryHigh and MemoryMax come from it.
type ServiceBudget struct {
	Unit    string
	Bytes   uint64
	Formula string
}

// ServiceMemorySettings are MemoryHigh= (the budget: above it the kernel
// reclaims and throttles the service) and MemoryMax= (the budget plus
// 10%, rounded up to MiB: the hard limit, where the kernel's OOM killer
// acts inside the service's cgroup, not the host's) for each budget.
func ServiceMemorySettings(bs []ServiceBudget) []finding.Setting {
	var out []finding.Setting
	for _, b := range bs {
		if b.Unit == "" || b.Bytes == 0 {
			continue
		}
		hi := (b.Bytes + MiB - 1) / MiB * MiB
		mx := (b.Bytes + b.Bytes/10 + MiB - 1) / MiB * MiB
		out = append(out,
			systemdSetting(b.Unit, "MemoryHigh", fmt.Sprintf("%dM", hi/MiB), b.Formula+" = "+units.Bytes(hi),
				"above its budget the service is reclaimed and slowed, not killed"),
			systemdSetting(b.Unit, "MemoryMax", fmt.Sprintf("%dM", mx/MiB), fmt.Sprintf("budget %s + 10%% = %s", units.Bytes(b.Bytes), units.Bytes(mx)),
				"a runaway is OOM-killed inside the service's own cgroup, not the host's"))
	}
	return out
}
