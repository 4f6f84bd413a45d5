package apply

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
)

const gi = uint64(1) << 30

// host24 is this machine's shape: 24 GiB, no swap, 4 GiB committed.
func host24() hostMem {
	return hostMem{MemTotal: 24 * gi, MemAvailable: 22 * gi, CommittedAS: 4 * gi, DefaultPage: 2 << 20,
		Pools: map[uint64]uint64{2 << 20: 0}, Ratio: 50}
}

func sysctl(name, old, new string) Change {
	return Change{Setting: finding.Setting{Target: finding.TargetSysctl, Name: name, Value: new},
		Path: "/proc/sys/" + strings.ReplaceAll(name, ".", "/"), Old: old, New: new, PairOld: pairOld(name)}
}

func pairOld(name string) string {
	if isOvercommitPair(name) {
		return "0"
	}
	return ""
}

// TestCommitLimitMatchesKernel computes CommitLimit for this host's
// current values and compares it with /proc/meminfo.
func TestCommitLimitMatchesKernel(t *testing.T) {
	// The machine-wide lock: no other test resizes a pool or changes the
	// ratio between the two reads.
	kerneltest.Lock(t)
	o := Options{}.withDefaults()
	h, err := readHostMem(o)
	if err != nil {
		t.Fatal(err)
	}
	m, err := linux.ReadMeminfo(linux.DefaultFS())
	if err != nil {
		t.Fatal(err)
	}
	if got := h.commitLimit(); got != *m.CommitLimitBytes {
		t.Errorf("computed CommitLimit %d, the kernel says %d (MemTotal %d, hugetlb %d, ratio %d, kbytes %d, swap %d)",
			got, *m.CommitLimitBytes, h.MemTotal, h.hugetlb(), h.Ratio, h.KBytes, h.SwapTotal)
	}
}

func TestCheckSteps(t *testing.T) {
	cases := []struct {
		name    string
		h       hostMem
		changes []Change
		want    []string // substrings of the refusals; none = accepted
	}{
		{"strict with ratio 50 on 24 GiB: limit 12 GiB > 4 GiB + 2.4 GiB", host24(),
			[]Change{sysctl("vm.overcommit_memory", "0", "2")}, nil},
		{"ratio 20: limit 4.8 GiB < 6.4 GiB", host24(),
			[]Change{sysctl("vm.overcommit_ratio", "50", "20"), sysctl("vm.overcommit_memory", "0", "2")},
			[]string{"CommitLimit would be 4.80 GiB = (MemTotal 24 GiB - huge pages 0 B) x 20/100 + 0 B swap, below Committed_AS 4 GiB (already promised) + 2.40 GiB headroom (10% of RAM) = 6.40 GiB"}},
		{"the fix names the smallest ratio", host24(),
			[]Change{sysctl("vm.overcommit_ratio", "50", "20"), sysctl("vm.overcommit_memory", "0", "2")},
			[]string{"raise vm.overcommit_ratio to at least 27"}},
		{"the pool lowers CommitLimit: 8 GiB pool with ratio 50 -> 8 GiB limit, fine", host24(),
			[]Change{sysctl("vm.nr_hugepages", "0", "4096"), sysctl("vm.overcommit_memory", "0", "2")}, nil},
		{"16 GiB pool, ratio 50 -> 4 GiB limit", host24(),
			[]Change{sysctl("vm.nr_hugepages", "0", "8192"), sysctl("vm.overcommit_memory", "0", "2")},
			[]string{"CommitLimit would be 4 GiB = (MemTotal 24 GiB - huge pages 16 GiB) x 50/100"}},
		{"already strict: growing the pool lowers the limit", withMode(host24(), 2),
			[]Change{sysctl("vm.nr_hugepages", "0", "8192")}, []string{"CommitLimit would be 4 GiB"}},
		{"already strict and too low: raising the ratio is not refused", withMode(withRatio(host24(), 10), 2),
			[]Change{sysctl("vm.overcommit_ratio", "10", "20")}, nil},
		{"kbytes: 1 GiB + no swap", host24(),
			[]Change{sysctl("vm.overcommit_kbytes", "0", "1048576"), sysctl("vm.overcommit_memory", "0", "2")},
			[]string{"vm.overcommit_kbytes 1048576 kB + 0 B swap"}},
		{"pool leaving less than 10% of RAM", host24(),
			[]Change{sysctl("vm.nr_hugepages", "0", "12000")},
			[]string{"the huge page pools would take 23.4 GiB of 24 GiB RAM, leaving 576 MiB", "at most 11059 pages of 2 MiB"}},
		{"pool growth beyond MemAvailable", withAvail(host24(), 5*gi),
			[]Change{sysctl("vm.nr_hugepages", "0", "2048")},
			[]string{"growing the pools by 4 GiB needs that much free memory now, but MemAvailable is 5 GiB", "at most 1331 more pages"}},
		{"a 1 GiB node pool counts too", host24(),
			[]Change{{Setting: finding.Setting{Target: finding.TargetSysfs, Name: "/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages"},
				Path: "/sys/devices/system/node/node0/hugepages/hugepages-1048576kB/nr_hugepages", Old: "0", New: "23"}},
			[]string{"would take 23 GiB"}},
		{"not a number", host24(), []Change{sysctl("vm.nr_hugepages", "0", "lots")}, []string{`"lots" is not a number`}},
		{"swappiness is not checked", host24(), []Change{sysctl("vm.swappiness", "60", "1")}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := checkSteps(c.h, c.changes, DefaultPolicy)
			if (len(got) == 0) != (len(c.want) == 0) || len(got) > 1 {
				t.Fatalf("refusals %+v, want one saying %q", got, c.want)
			}
			for _, w := range c.want {
				if !strings.Contains(got[0].Reason+" "+got[0].Fix, w) {
					t.Errorf("refusal %q\nfix %q\ndoes not say %q", got[0].Reason, got[0].Fix, w)
				}
			}
		})
	}
}

func withMode(h hostMem, m int64) hostMem   { h.Mode = m; return h }
func withRatio(h hostMem, r uint64) hostMem { h.Ratio = r; return h }
func withAvail(h hostMem, a uint64) hostMem { h.MemAvailable = a; return h }

func TestEngineRefusals(t *testing.T) {
	s := []finding.Setting{
		{Target: finding.TargetPostgres, Name: "huge_pages", Value: "on"},
		{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: "infinity", Unit: "mariadb.service"},
		{Target: finding.TargetSysctl, Name: "vm.swappiness", Value: "1"},
	}
	s = append(s, finding.Setting{Target: finding.TargetSystemd, Name: "OOMScoreAdjust", Value: "-1000"})
	got := engineRefusals(s, Engines{}, []string{"postgresql@15-main.service"})
	if len(got) != 3 || !strings.Contains(got[0].Reason, "no PostgreSQL server runs on this host") ||
		!strings.Contains(got[1].Reason, "no MySQL/MariaDB server") || got[2].Setting != "OOMScoreAdjust=-1000" {
		t.Errorf("refusals: %+v", got)
	}
	if got := engineRefusals(s, Engines{Postgres: 1, MySQL: 1}, nil); len(got) != 0 {
		t.Errorf("refused with both engines running: %+v", got)
	}
}

func TestIncludeDir(t *testing.T) {
	for conf, want := range map[string]string{
		"include_dir = 'conf.d'\t\t\t# include files ending in '.conf' from\n": "conf.d",
		"#include_dir = 'conf.d'\n":                          "",
		"include_dir 'a'\ninclude_dir='/etc/pg/b' # later\n": "/etc/pg/b",
		"include_dir_x = 'no'\ninclude = 'x.conf'\n":         "",
	} {
		if got := includeDir(conf); got != want {
			t.Errorf("includeDir(%q) = %q, want %q", conf, got, want)
		}
	}
}
