package render

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
)

func TestValidateRejects(t *testing.T) {
	bad := []finding.Setting{
		{Target: finding.TargetSysctl, Name: "vm.swappiness", Value: "1\nvm.overcommit_memory = 2"},
		{Target: finding.TargetSysctl, Name: "vm/../../etc", Value: "1"},
		{Target: finding.TargetSysctl, Name: "swappiness", Value: "1"},
		{Target: finding.TargetSysfs, Name: "kernel/mm/transparent_hugepage/enabled", Value: "never'; rm -rf /; '"},
		{Target: finding.TargetPostgres, Name: "huge_pages = on; DROP TABLE x", Value: "on"},
		{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: "infinity", Unit: "x.service\n[Service]"},
		{Target: finding.TargetKernelArgs, Name: "hugepages", Value: "1\" ; reboot ; \""},
		{Target: "grub", Name: "x", Value: "1"},
	}
	for _, s := range bad {
		if err := Validate([]finding.Setting{s}); err == nil {
			t.Errorf("accepted %+v", s)
		}
	}
	if err := Validate(plan()); err != nil {
		t.Errorf("rejected the example plan: %v", err)
	}
}

func TestSysfsPath(t *testing.T) {
	for in, want := range map[string]string{
		"/sys/kernel/mm/transparent_hugepage/enabled":    "kernel/mm/transparent_hugepage/enabled",
		"kernel/mm/transparent_hugepage/enabled":         "kernel/mm/transparent_hugepage/enabled",
		"transparent_hugepage/defrag":                    "kernel/mm/transparent_hugepage/defrag",
		"hugepages/hugepages-1048576kB/nr_hugepages":     "kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages",
		"../../etc/passwd":                               "etc/passwd",
		"devices/system/node/node0/hugepages/x/../../..": "devices/system/node",
	} {
		if got := SysfsPath(in); got != want {
			t.Errorf("SysfsPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOrder(t *testing.T) {
	names := func(s []finding.Setting) string {
		var n []string
		for _, x := range s {
			n = append(n, x.Name)
		}
		return strings.Join(n, " ")
	}
	got := names(Order(plan()[:4]))
	if want := "vm.nr_hugepages vm.overcommit_ratio vm.overcommit_memory vm.swappiness"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	raise := []finding.Setting{
		{Target: finding.TargetSysctl, Name: "vm.nr_hugepages", Value: "100", Current: "0"},
		{Target: finding.TargetSysctl, Name: "vm.overcommit_ratio", Value: "80", Current: "50"},
	}
	if got := names(Order(raise)); got != "vm.overcommit_ratio vm.nr_hugepages" {
		t.Errorf("a raised ratio must come before the pool grows (it keeps CommitLimit up): %q", got)
	}
}

func TestWrap(t *testing.T) {
	got := wrap("  aaa bbb ccc ddd eee", 9, 2)
	if strings.Join(got, "|") != "  aaa bbb|ccc ddd|eee" {
		t.Errorf("wrap: %q", got)
	}
	if got := wrap("", 10, 0); len(got) != 1 || got[0] != "" {
		t.Errorf("wrap empty: %q", got)
	}
}

// FuzzFormat: no input makes rendering panic, and what validates renders.
func FuzzFormat(f *testing.F) {
	f.Add("sysctl", "vm.swappiness", "1", "")
	f.Add("systemd", "LimitMEMLOCK", "infinity", "x.service")
	f.Add("kernel-cmdline", "hugepages", "17", "")
	f.Fuzz(func(t *testing.T, target, name, value, unit string) {
		s := []finding.Setting{{Target: finding.Target(target), Name: name, Value: value, Unit: unit, Why: value}}
		for _, k := range Kinds {
			Format(k, s, Options{Units: []string{"db.service"}, PostgresConfDir: "/c"})
		}
		Files(s, Options{})
	})
}

// TestValidateRoles: a role name with quotes, spaces and Unicode is
// written; one with a control character, none or over 63 bytes is not.
func TestValidateRoles(t *testing.T) {
	ok := finding.Setting{Target: finding.TargetPostgresRole, Role: `a "b" ü@c`, Name: "work_mem", Value: "64MB"}
	if err := Validate([]finding.Setting{ok}); err != nil {
		t.Errorf("%q: %v", ok.Role, err)
	}
	for _, role := range []string{"", "a\nb", "a\x1b[2Jb", strings.Repeat("x", 64)} {
		s := ok
		s.Role = role
		if err := Validate([]finding.Setting{s}); err == nil {
			t.Errorf("role %q was accepted", role)
		}
	}
	s := ok
	s.Value = `64MB\`
	if err := Validate([]finding.Setting{s}); err == nil {
		t.Error("a value with a backslash was accepted")
	}
}
