package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// TestFallbackCause: huge_pages=try fell back although the pool has
// enough free pages: the finding names the real cause, never says to grow
// the pool, and no other finding calls the pool unused.
func TestFallbackCause(t *testing.T) {
	segment := 8700000 * KiB
	for _, c := range []struct {
		name      string
		settings  postgres.Settings
		mut       func(*snapshot.Snapshot)
		says      []string
		grows     bool
		tooSmall  bool
		severity  finding.Severity
		unusedToo bool
	}{
		{"huge_page_size=1GB with a 2 MiB pool", postgres.Settings{"huge_page_size": pgSet("1GB", GiB)}, pool(4500, 4500, 0),
			[]string{"huge_page_size=1gb", "huge_page_size=0", "keep it"}, false, false, finding.Notice, false},
		{"a pod with no hugepages-2Mi: hugetlb limit 0", nil, func(s *snapshot.Snapshot) {
			pool(32768, 32768, 0)(s)
			s.Cgroups = []linux.CgroupInfo{{PID: 100, Hugetlb: []linux.CgroupHugetlb{{Version: 2, PageSizeBytes: 2 * MiB,
				LimitBytes: new(uint64(0)), LimitPath: "/", RsvdLimitBytes: new(uint64(0)), RsvdLimitPath: "/", LimitHits: new(uint64(1))}}}}
		}, []string{"hugetlb", "hugepages-2mi", "the pod requests no hugepages-2mi"}, false, false, finding.Notice, false},
		{"the pool is too small: grow it", nil, pool(3170, 3170, 0), []string{"vm.nr_hugepages covering"}, true, true, finding.Notice, false},
		{"no pool at all", nil, func(*snapshot.Snapshot) {}, []string{"vm.nr_hugepages covering"}, true, false, finding.Notice, false},
	} {
		s := hostSnap(64 * GiB)
		in := pgInstance(segment, basePage, c.settings)
		s.Postgres = append(s.Postgres, in)
		c.mut(s)
		fs := Check(s, Options{})
		f, ok := find(fs, "hugepages.fallback")
		if !ok || f.Severity != c.severity {
			t.Errorf("%s: fallback %+v (found %v)", c.name, f.Severity, ok)
			continue
		}
		text := strings.ToLower(f.Title + " " + f.Fix + " " + evidenceText(f))
		for _, w := range c.says {
			if !strings.Contains(text, w) {
				t.Errorf("%s: fallback does not say %q: %s", c.name, w, text)
			}
		}
		if grows := len(f.Settings) > 0; grows != c.grows {
			t.Errorf("%s: grows the pool %v (%+v), want %v", c.name, grows, f.Settings, c.grows)
		}
		if _, ok := find(fs, "hugepages.pool_too_small"); ok != c.tooSmall {
			t.Errorf("%s: pool_too_small %v, want %v", c.name, ok, c.tooSmall)
		}
		for _, id := range []string{"hugepages.pool_unused", "hugepages.pool_oversized"} {
			if _, ok := find(fs, id); ok {
				t.Errorf("%s: %s beside a fallback: the pool is meant for the instance", c.name, id)
			}
		}
	}
}

// TestFallbackWeighsCgroupLimit: in a pod limited to 64 GiB, 6.4 GiB of
// projected page tables (10% of the limit, 1.3% of the node's RAM) make the
// fallback a warning.
func TestFallbackWeighsCgroupLimit(t *testing.T) {
	s := hostSnap(503 * GiB)
	in := pgInstance(17300000*KiB, basePage, postgres.Settings{"max_connections": pgSet("200")})
	in.Cgroup = &linux.CgroupMemory{LimitBytes: new(64 * GiB), LimitPath: "/"}
	s.Postgres = append(s.Postgres, in)
	if f, _ := find(Check(s, Options{}), "hugepages.fallback"); f.Severity != finding.Warning {
		t.Errorf("fallback %s in a 64 GiB pod, want warning", f.Severity)
	}
}

// TestSIGBUSCritical: k8s-pod-hugetlb-no-rsvd: a 296 MiB segment in huge
// pages under a 256 MiB fault limit without a reservation limit, the limit
// hit 3 times: critical; under the limit, or never hit, a warning.
func TestSIGBUSCritical(t *testing.T) {
	for _, c := range []struct {
		name    string
		segment uint64
		hits    uint64
		want    finding.Severity
	}{
		{"segment past the limit, hit", 296 * MiB, 3, finding.Critical},
		{"segment past the limit, never hit", 296 * MiB, 0, finding.Warning},
		{"segment within the limit", 200 * MiB, 3, finding.Warning},
	} {
		s := hostSnap(16 * GiB)
		s.Postgres = append(s.Postgres, pgInstance(c.segment, 2*MiB, nil))
		s.Cgroups = []linux.CgroupInfo{{PID: 100, Hugetlb: []linux.CgroupHugetlb{{Version: 2, PageSizeBytes: 2 * MiB,
			LimitBytes: new(256 * MiB), LimitPath: "/", RsvdAccounting: true, LimitHits: new(c.hits)}}}}
		if f, ok := find(Check(s, Options{}), "container.hugetlb_sigbus"); !ok || f.Severity != c.want {
			t.Errorf("%s: %v %v, want %s", c.name, f.Severity, ok, c.want)
		}
	}
}
