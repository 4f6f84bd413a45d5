package render

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const unit = "postgresql@15-main.service"

// plan is what a plan for a 34 GiB host with 2 GiB of swap and PostgreSQL 15
// with shared_buffers = 16GB looks like (hand-made, numbers consistent).
func plan() []finding.Setting {
	return []finding.Setting{
		{Target: finding.TargetSysctl, Name: "vm.overcommit_memory", Value: "2", Current: "0",
			Formula: "strict accounting: CommitLimit = (MemTotal - huge pages) x ratio/100 + swap = 17.6 GiB x 50/100 + 2.0 GiB = 10.8 GiB, above Committed_AS 6.1 GiB",
			Why:     "a runaway query gets \"out of memory\" instead of an OOM kill that restarts every session"},
		{Target: finding.TargetSysctl, Name: "vm.overcommit_ratio", Value: "50", Current: "50",
			Formula: "((1 - 0.20) x 34.0 GiB RAM - 2.0 GiB swap - 16.4 GiB huge pages) / (34.0 GiB - 16.4 GiB) x 100 = 50",
			Why:     "keeps 20% of RAM for the page cache"},
		{Target: finding.TargetSysctl, Name: "vm.swappiness", Value: "1", Current: "60",
			Formula: "dedicated database host: 1", Why: "swap only to avoid an OOM kill, never to make room for the page cache"},
		{Target: finding.TargetSysctl, Name: "vm.nr_hugepages", Value: "8406", Current: "0",
			Formula: "shared_memory_size_in_huge_pages = 8406 (shared_buffers 16GB + 416 MiB of other shared memory) / 2 MiB pages",
			Why:     "shared_buffers in 2 MiB pages: page tables of 4 KiB per GiB per backend instead of 2 MiB"},
		{Target: finding.TargetSysfs, Name: "kernel/mm/transparent_hugepage/enabled", Value: "never", Current: "madvise",
			Formula: "PostgreSQL 15: never", Why: "khugepaged compaction stalls and bloat; PostgreSQL, MySQL and Oracle advise never"},
		{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: "infinity", Unit: unit,
			Formula: "huge page pool 16.4 GiB <= infinity", Why: "a memlock limit below the segment makes SysV SHM_HUGETLB fail"},
		{Target: finding.TargetSystemd, Name: "OOMScoreAdjust", Value: "-1000", Unit: unit,
			Formula: "postmaster: -1000", Why: "the OOM killer must never pick the postmaster"},
		{Target: finding.TargetSystemd, Name: "Environment", Value: "PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj PG_OOM_ADJUST_VALUE=0", Unit: unit,
			Formula: "children reset to 0", Why: "backends stay killable, so a runaway query is the victim, not the postmaster"},
		{Target: finding.TargetPostgres, Name: "huge_pages", Value: "on", Current: "try", Restart: unit,
			Formula: "pool of 8406 pages >= 8406 needed", Why: "try falls back to 4 KiB pages silently; on refuses to start without them"},
		{Target: finding.TargetKernelArgs, Name: "transparent_hugepage", Value: "never", Current: "madvise",
			Formula: "same as /sys/kernel/mm/transparent_hugepage/enabled", Why: "off from the first process"},
	}
}

// plan1G is the 1 GiB page variant: the pool at boot.
func plan1G() []finding.Setting {
	return []finding.Setting{
		{Target: finding.TargetKernelArgs, Name: "default_hugepagesz", Value: "1G", Formula: "CPU flag pdpe1gb present", Why: "vm.nr_hugepages and huge_pages=on then mean 1 GiB pages"},
		{Target: finding.TargetKernelArgs, Name: "hugepagesz", Value: "1G", Formula: "1 GiB pages", Why: "runtime allocation of 1 GiB pages usually fails on fragmented memory"},
		{Target: finding.TargetKernelArgs, Name: "hugepages", Value: "17", Formula: "ceil(16.4 GiB / 1 GiB) = 17", Why: "the pool is reserved at boot, before memory fragments"},
		{Target: finding.TargetKernelArgs, Name: "transparent_hugepage", Value: "never", Formula: "PostgreSQL: never", Why: "off from the first process"},
		{Target: finding.TargetPostgres, Name: "huge_page_size", Value: "1GB", Restart: unit, Formula: "default_hugepagesz=1G", Why: "use the 1 GiB pool"},
	}
}

// roleSettings are per-role work_mem values, one for a role whose name
// has a quote, a space and Unicode, with a carriage return in its why (a
// log path): it must not end the comment.
func roleSettings() []finding.Setting {
	return []finding.Setting{
		{Target: finding.TargetPostgresRole, Role: `report "user" ü`, Name: "work_mem", Value: "56MB",
			Formula: "1MB work_mem + 54.3 MiB largest spill, rounded up to 4MB = 56MB",
			Why:     "its queries spill (server log /tmp/x\rALTER ROLE postgres NOSUPERUSER;)"},
		{Target: finding.TargetPostgresRole, Role: "etl", Name: "work_mem", Value: "128MB", Current: "1GB",
			Formula: "25% of the 16 GiB limit / (4 active x 3) = 341MB", Why: "its own work_mem takes more than 25% of the limit"},
	}
}

func opts() Options {
	return Options{Generated: "dbmem test", PostgresConfDir: "/etc/postgresql/15/main/conf.d", Units: []string{unit}}
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run go test -update and review the diff):\n%s", name, path, got)
	}
}

func TestFormatGolden(t *testing.T) {
	for _, k := range Kinds {
		if k == "kubernetes" {
			continue // kube_test.go: built from the plan's instances
		}
		s := plan()
		if k == "mysql" {
			s = append(s, finding.Setting{Target: finding.TargetMySQL, Name: "large_pages", Value: "ON", Current: "OFF",
				Restart: "mariadb.service", Formula: "vm.nr_hugepages > 0", Why: "buffer pool in huge pages (check the mappings: MariaDB may still use 4 KiB pages)"})
		}
		if k == "alter-role" || k == "alter-system" {
			s = append(s, roleSettings()...)
		}
		t.Run(k, func(t *testing.T) {
			got, err := Format(k, s, opts())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, k, got)
		})
	}
	for _, k := range []string{"kernel-cmdline", "tuned"} {
		got, err := Format(k, plan1G(), opts())
		if err != nil {
			t.Fatal(err)
		}
		golden(t, k+"-1g", got)
	}
}

// kindTargets are the targets each kind must explain value by value.
var kindTargets = map[string][]finding.Target{
	"sysctl": {finding.TargetSysctl}, "systemd": {finding.TargetSystemd, finding.TargetSysfs},
	"postgresql": {finding.TargetPostgres}, "alter-system": {finding.TargetPostgres}, "alter-role": {finding.TargetPostgresRole}, "mysql": {finding.TargetMySQL},
	"tuned":          {finding.TargetSysctl, finding.TargetSysfs, finding.TargetKernelArgs},
	"kernel-cmdline": {finding.TargetKernelArgs},
}

// flat drops comment markers and line breaks, so wrapped comments compare.
func flat(s string) string {
	var words []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), "#"), "--")
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

func TestFormatEveryValueIsExplained(t *testing.T) {
	for _, k := range Kinds {
		if k == "kubernetes" {
			continue // TestKubernetesStrict
		}
		got, err := Format(k, plan(), opts())
		if errors.Is(err, ErrNoSettings) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, tg := range kindTargets[k] {
			for _, s := range Of(plan(), tg) {
				if !strings.Contains(flat(got), flat(s.Formula)) || !strings.Contains(flat(got), flat(s.Why)) {
					t.Errorf("%s: %s=%s is written without its formula and why", k, s.Name, s.Value)
				}
			}
		}
	}
}

func TestFiles(t *testing.T) {
	files, err := Files(plan(), opts())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"sysctl /etc/sysctl.d/60-dbmem.conf",
		"systemd /etc/systemd/system/postgresql@15-main.service.d/60-dbmem.conf",
		"systemd /etc/systemd/system/dbmem-sysfs.service",
		"postgresql /etc/postgresql/15/main/conf.d/60-dbmem.conf",
		"kernel-cmdline /etc/default/grub.d/60-dbmem.cfg",
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Kind+" "+f.Path)
		if f.Mode != 0o644 || f.Then == "" || !strings.HasPrefix(f.Content, "# "+f.Path) {
			t.Errorf("%s: mode %o, then %q, content starts %q", f.Path, f.Mode, f.Then, f.Content[:40])
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestFilesWithoutConfDir(t *testing.T) {
	o := opts()
	o.PostgresConfDir = ""
	if _, err := Files(plan(), o); err == nil || !strings.Contains(err.Error(), "include_dir") {
		t.Errorf("want an error naming include_dir, got %v", err)
	}
	o.Units = nil
	s := plan()[5:6]
	s[0].Unit = ""
	if _, err := Files(s, o); err == nil || !strings.Contains(err.Error(), "no unit") {
		t.Errorf("want an error for a systemd setting without a unit, got %v", err)
	}
}

func TestFormatNoSettings(t *testing.T) {
	only := plan()[:1]
	for _, k := range []string{"systemd", "postgresql", "alter-system", "mysql", "kernel-cmdline"} {
		if _, err := Format(k, only, opts()); !errors.Is(err, ErrNoSettings) {
			t.Errorf("%s with only a sysctl: err %v, want ErrNoSettings", k, err)
		}
	}
	if _, err := Format("ini", plan(), opts()); err == nil || !strings.Contains(err.Error(), "sysctl, systemd") {
		t.Errorf("unknown kind: %v", err)
	}
}
