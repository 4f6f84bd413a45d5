package apply

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

func TestParseSet(t *testing.T) {
	for in, want := range map[string]finding.Setting{
		"vm.swappiness=10":                          {Target: finding.TargetSysctl, Name: "vm.swappiness", Value: "10"},
		"transparent_hugepage/enabled=never":        {Target: finding.TargetSysfs, Name: "transparent_hugepage/enabled", Value: "never"},
		"postgresql:huge_pages=on":                  {Target: finding.TargetPostgres, Name: "huge_pages", Value: "on"},
		"systemd:LimitMEMLOCK=infinity":             {Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: "infinity"},
		"systemd:Environment=PG_OOM_ADJUST_VALUE=0": {Target: finding.TargetSystemd, Name: "Environment", Value: "PG_OOM_ADJUST_VALUE=0"},
	} {
		got, err := ParseSet(in)
		if err != nil || got.Target != want.Target || got.Name != want.Name || got.Value != want.Value {
			t.Errorf("ParseSet(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if !strings.Contains(got.Formula, in) {
			t.Errorf("ParseSet(%q): formula %q does not say where the value came from", in, got.Formula)
		}
	}
	for _, bad := range []string{"huge_pages=on", "vm.swappiness", "=1", ""} {
		if _, err := ParseSet(bad); err == nil {
			t.Errorf("ParseSet(%q) accepted", bad)
		}
	}
}

func TestReadPlan(t *testing.T) {
	arr := `[{"target":"sysctl","name":"vm.swappiness","value":"1","formula":"f","why":"w"}]`
	obj := `{"schema":"dbmem.plan/v1","settings":[{"target":"sysfs","name":"/sys/kernel/mm/transparent_hugepage/enabled","value":"never"}],"notes":["x"]}`
	for in, name := range map[string]string{arr: "vm.swappiness", obj: "/sys/kernel/mm/transparent_hugepage/enabled"} {
		s, err := ReadPlan(strings.NewReader(in))
		if err != nil || len(s) != 1 || s[0].Name != name {
			t.Errorf("ReadPlan(%s) = %+v, %v", in, s, err)
		}
	}
	for _, bad := range []string{`{"schema":"x"}`, `not json`, `[{"target":1}]`} {
		if _, err := ReadPlan(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadPlan(%s) accepted", bad)
		}
	}
}

func FuzzParseSet(f *testing.F) {
	f.Add("vm.swappiness=10")
	f.Add("systemd:LimitMEMLOCK=infinity")
	f.Fuzz(func(t *testing.T, s string) { ParseSet(s) })
}

func FuzzReadPlan(f *testing.F) {
	f.Add(`[{"target":"sysctl","name":"vm.swappiness","value":"1"}]`)
	f.Add(`{"settings":[]}`)
	f.Fuzz(func(t *testing.T, s string) { ReadPlan(strings.NewReader(s)) })
}

func FuzzKernelWord(f *testing.F) {
	f.Add("always [madvise] never")
	f.Add("]x[")
	f.Fuzz(func(t *testing.T, s string) { hostchange.SameValue(s, linux.SelectedWord(s)) })
}
