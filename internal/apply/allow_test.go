package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
)

// fakeKernel copies this host's kernel files that apply reads into a
// temporary tree (regular files) and points o at it: a plan that is not
// refused writes into the copies, never into the kernel.
func fakeKernel(t *testing.T, o *Options) {
	t.Helper()
	dir := t.TempDir()
	copyIn := func(from, to string) {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		to = filepath.Join(dir, to)
		os.MkdirAll(filepath.Dir(to), 0o755)
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyIn("/proc/meminfo", "proc/meminfo")
	for _, n := range []string{"vm/nr_hugepages", "vm/nr_hugepages_mempolicy", "vm/min_free_kbytes", "kernel/core_pattern", "vm/swappiness",
		"vm/overcommit_memory", "vm/overcommit_ratio", "vm/overcommit_kbytes", "vm/nr_overcommit_hugepages", "vm/hugetlb_shm_group",
		"kernel/shmmax", "kernel/shmall", "vm/zone_reclaim_mode"} {
		copyIn("/proc/sys/"+n, "proc/sys/"+n)
	}
	for _, n := range []string{"power/state", "kernel/mm/ksm/run", "kernel/mm/transparent_hugepage/enabled", "kernel/mm/transparent_hugepage/defrag"} {
		copyIn("/sys/"+n, "sys/"+n)
	}
	pools, _ := filepath.Glob("/sys/kernel/mm/hugepages/hugepages-*/*_hugepages")
	for _, p := range pools {
		copyIn(p, strings.TrimPrefix(p, "/"))
	}
	copyIn("/etc/group", "root/etc/group")
	o.FS = linux.FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root")}
}

// TestOnlyPlannedSettings: apply refuses every setting dbmem does not plan
// and every planned one whose value fails its check, names the reason,
// and Run changes nothing. The kernel files are copies (fakeKernel): even
// without the checks nothing reaches this host's kernel.
func TestOnlyPlannedSettings(t *testing.T) {
	o := testOptions(t)
	fakeKernel(t, &o)
	o.Postgres, o.MySQL, o.Boot = true, true, true
	o.Render.PostgresConfDir, o.Render.Units = "/etc/postgresql/15/main/conf.d", []string{"postgresql@15-main.service"}
	o.Engines = &Engines{Postgres: 1, MySQL: 1}
	shmmax := readSysctl(t, "kernel.shmmax")
	cases := []struct {
		s    finding.Setting
		want string
	}{
		{setting("vm.nr_hugepages_mempolicy", "12000"), "sysctl vm.nr_hugepages_mempolicy is not one dbmem plans"},
		{setting("vm.min_free_kbytes", "20000000"), "sysctl vm.min_free_kbytes is not one dbmem plans"},
		{setting("kernel.core_pattern", "|/tmp/x %p"), "sysctl kernel.core_pattern is not one dbmem plans"},
		{setting("/sys/power/state", "mem"), "/sys/power/state is not a file dbmem plans"},
		{setting("/sys/kernel/mm/ksm/run", "1"), "/sys/kernel/mm/ksm/run is not a file dbmem plans"},
		{setting("vm.swappiness", "500"), `"500" is not a whole number from 0 to 200`},
		{setting("vm.overcommit_memory", "3"), `"3" is not one of 0, 1, 2`},
		{setting("vm.overcommit_ratio", "150"), `"150" is not a whole number from 0 to 100`},
		{setting("vm.nr_hugepages", "-1"), `"-1" is not a whole number`},
		{setting("transparent_hugepage/enabled", "sometimes"), `"sometimes" is not one of the words`},
		{setting("vm.nr_overcommit_hugepages", "100000000"), "surplus pages of 2 MiB"},
		{setting("vm.hugetlb_shm_group", "987654"), "gid 987654 is not a group in /etc/group"},
		{setting("kernel.shmmax", "4096"), "kernel.shmmax would fall from " + shmmax + " to 4096"},
		{finding.Setting{Target: finding.TargetSystemd, Name: "ExecStartPre", Value: "/bin/sh -c id"}, "systemd setting ExecStartPre is not one dbmem plans"},
		{finding.Setting{Target: finding.TargetSystemd, Name: "Environment", Value: "LD_PRELOAD=/tmp/x.so"}, "is not a value dbmem plans"},
		{finding.Setting{Target: finding.TargetKernelArgs, Name: "init", Value: "/bin/sh"}, "kernel command line word init is not one dbmem plans"},
		{finding.Setting{Target: finding.TargetPostgres, Name: "archive_command", Value: "rm -rf /"}, "postgresql archive_command runs commands"},
		{finding.Setting{Target: finding.TargetPostgres, Name: "shared_preload_libraries", Value: "evil"}, "runs commands, loads code or names files"},
		{finding.Setting{Target: finding.TargetMySQL, Name: "plugin_load_add", Value: "evil.so"}, "mysql plugin_load_add runs commands"},
	}
	for _, c := range cases {
		t.Run(c.s.Name, func(t *testing.T) {
			p, err := Prepare([]finding.Setting{c.s}, o)
			if err != nil {
				t.Fatal(err)
			}
			var text []string
			for _, r := range p.Refusals {
				text = append(text, r.String())
			}
			if !strings.Contains(strings.Join(text, "\n"), c.want) {
				t.Errorf("refusals %q, want one saying %q", text, c.want)
			}
			if _, err := Run(p, o); err == nil || !strings.Contains(err.Error(), "nothing was changed") {
				t.Errorf("Run: %v, want a refusal", err)
			}
		})
	}
	mustNotExist(t, o.JournalDir)
}

// TestPlannedSettingsPass: what plan renders, with sane values, is not
// refused.
func TestPlannedSettingsPass(t *testing.T) {
	o := testOptions(t)
	fakeKernel(t, &o)
	o.Postgres, o.Boot = true, true
	o.Render.PostgresConfDir, o.Render.Units = "/etc/postgresql/15/main/conf.d", []string{"postgresql@15-main.service"}
	o.Engines = &Engines{Postgres: 1}
	thp := linux.SelectedWord(readFile(t, "/sys/kernel/mm/transparent_hugepage/enabled"))
	settings := []finding.Setting{
		setting("vm.swappiness", readSysctl(t, "vm.swappiness")),
		setting("vm.zone_reclaim_mode", "0"),
		setting("vm.hugetlb_shm_group", "0"),
		setting("kernel.shmmax", readSysctl(t, "kernel.shmmax")),
		setting("/sys/kernel/mm/transparent_hugepage/enabled", thp),
		setting("vm.nr_overcommit_hugepages", readSysctl(t, "vm.nr_overcommit_hugepages")),
		{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: "infinity"},
		{Target: finding.TargetSystemd, Name: "Environment", Value: "PG_OOM_ADJUST_VALUE=0"},
		{Target: finding.TargetSystemd, Name: "OOMScoreAdjust", Value: "-1000"},
		{Target: finding.TargetKernelArgs, Name: "hugepagesz", Value: "2M"},
		{Target: finding.TargetKernelArgs, Name: "hugepages", Value: "16"},
		{Target: finding.TargetPostgres, Name: "huge_pages", Value: "on"},
		{Target: finding.TargetPostgres, Name: "shared_buffers", Value: "4GB"},
	}
	p, err := Prepare(settings, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Refusals) > 0 {
		t.Errorf("refused planned settings: %+v", p.Refusals)
	}
}
