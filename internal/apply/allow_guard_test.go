package apply

import (
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
)

// The OOM guard's settings (dbmem plan's OOMPolicy=continue,
// ManagedOOMPreference=avoid, Restart, MemoryHigh/MemoryMax and the
// sysctls turned off) are applied; other values of them are refused.
func TestGuardSettingsAllowed(t *testing.T) {
	ok := []finding.Setting{
		{Target: finding.TargetSystemd, Name: "OOMPolicy", Value: "continue", Unit: "postgresql@15-main.service"},
		{Target: finding.TargetSystemd, Name: "ManagedOOMPreference", Value: "avoid", Unit: "postgresql@15-main.service"},
		{Target: finding.TargetSystemd, Name: "Restart", Value: "on-abnormal", Unit: "mariadb.service"},
		{Target: finding.TargetSystemd, Name: "MemoryHigh", Value: "6144M", Unit: "postgresql@15-main.service"},
		{Target: finding.TargetSystemd, Name: "MemoryMax", Value: "6759M", Unit: "postgresql@15-main.service"},
		{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: "17825792", Unit: "postgresql@18-main.service"},
		{Target: finding.TargetSysctl, Name: "vm.panic_on_oom", Value: "0"},
		{Target: finding.TargetSysctl, Name: "vm.oom_kill_allocating_task", Value: "0"},
		{Target: finding.TargetSysctl, Name: "kernel.io_uring_disabled", Value: "0"},
	}
	if keep, refused := allowed(ok); len(keep) != len(ok) || len(refused) != 0 {
		t.Fatalf("refused %+v", refused)
	}
	bad := []finding.Setting{
		{Target: finding.TargetSystemd, Name: "OOMPolicy", Value: "stop; rm -rf /"},
		{Target: finding.TargetSystemd, Name: "Restart", Value: "always\nExecStartPre=/bin/sh"},
		{Target: finding.TargetSysctl, Name: "vm.panic_on_oom", Value: "2"},
		{Target: finding.TargetSystemd, Name: "MemoryMax", Value: "50%"},
	}
	if keep, refused := allowed(bad); len(keep) != 0 || len(refused) != len(bad) {
		t.Fatalf("kept %+v", keep)
	}
}
