package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
)

var (
	redis   = cohost.Software{Kind: cohost.Redis, Name: "redis-server", PIDs: []int{1020}}
	jvm     = cohost.Software{Kind: cohost.JVM, Name: "java (org.elasticsearch.bootstrap.Elasticsearch)", PIDs: []int{2200}}
	beam    = cohost.Software{Kind: cohost.Erlang, Name: "beam.smp (rabbitmq)", PIDs: []int{900}}
	kubelet = cohost.Software{Kind: cohost.Kubelet, Name: "kubelet", PIDs: []int{912}}
	mongo8  = cohost.Software{Kind: cohost.MongoDB, Name: "mongod", PIDs: []int{2400}, Major: 8}
	mongo   = cohost.Software{Kind: cohost.MongoDB, Name: "mongod", PIDs: []int{2400}}
	oracle  = cohost.Software{Kind: cohost.Oracle, Name: "oracle (SID ORCL)", PIDs: []int{4100}}
)

// TestCoHostedChecks: the software beside the databases changes the
// overcommit and THP findings, each naming it.
func TestCoHostedChecks(t *testing.T) {
	pg := func(s *snapshot.Snapshot) { s.Postgres = append(s.Postgres, pgInstance(143*MiB, basePage, nil)) }
	for _, c := range []struct {
		name string
		sw   []cohost.Software
		mut  func(*snapshot.Snapshot)
		id   string
		sev  finding.Severity
		says []string
	}{
		{"Redis with mode 1", []cohost.Software{redis}, func(s *snapshot.Snapshot) { pg(s); s.Host.Sysctls["vm.overcommit_memory"] = "1" },
			"overcommit.mode", finding.Info, []string{"redis-server (pid 1020)", "bgsave", "memorymax"}},
		{"a JVM with mode 0", []cohost.Software{jvm}, func(s *snapshot.Snapshot) { pg(s); s.Host.Sysctls["vm.overcommit_memory"] = "0" },
			"overcommit.mode", finding.Info, []string{"java (org.elasticsearch", "-xmx"}},
		{"kubelet", []cohost.Software{kubelet}, func(s *snapshot.Snapshot) { pg(s); s.Host.Sysctls["vm.overcommit_memory"] = "1" },
			"overcommit.mode", finding.Info, []string{"kubelet", "resources.limits.memory"}},
		{"Redis under strict overcommit", []cohost.Software{redis, beam}, pg, "overcommit.mode", finding.Warning, []string{"background save fails"}},
		{"inside a pod: the node's, said once", nil, func(s *snapshot.Snapshot) {
			pg(s)
			s.Host.Sysctls["vm.overcommit_memory"] = "1"
			s.Environment = linux.Environment{InContainer: true, SysctlsReadOnly: true}
		}, "overcommit.mode", finding.Info, []string{"node's settings", "read-only"}},
		{"Oracle's pool takes 82% of RAM: no ratio", []cohost.Software{oracle}, func(s *snapshot.Snapshot) {
			s.Host.Sysctls["vm.overcommit_memory"] = "0"
			s.Host.HugePools[0].Total, s.Host.HugePools[0].Free = 13400, 3000
		}, "overcommit.mode", finding.Info, []string{"no strict overcommit keeps the page-cache reserve"}},
		{"THP always with PostgreSQL and Redis", []cohost.Software{redis}, func(s *snapshot.Snapshot) { pg(s); s.Host.THP.Enabled = "always" },
			"thp.enabled", finding.Warning, []string{"postgresql 15 and redis advise never"}},
		{"THP always with Oracle alone", []cohost.Software{oracle}, func(s *snapshot.Snapshot) { s.Host.THP.Enabled = "always" },
			"thp.enabled", finding.Warning, []string{"oracle advises never"}},
		{"THP always: MongoDB 8 wants it, PostgreSQL not: kept", []cohost.Software{mongo8}, func(s *snapshot.Snapshot) { pg(s); s.Host.THP.Enabled = "always" },
			"thp.enabled", finding.Info, []string{"mongodb 8.0 advises always: kept"}},
		{"THP never: MongoDB 8 wants always", []cohost.Software{mongo8}, func(s *snapshot.Snapshot) { s.Host.THP.Enabled = "never" },
			"thp.enabled", finding.Notice, []string{"mongodb 8.0 advises always", "defer+madvise"}},
		{"THP always, MongoDB of unknown version beside PostgreSQL: kept", []cohost.Software{mongo}, func(s *snapshot.Snapshot) { pg(s); s.Host.THP.Enabled = "always" },
			"thp.enabled", finding.Info, []string{"depends on its version"}},
	} {
		s := hostSnap(32 * GiB)
		s.Software = c.sw
		c.mut(s)
		f, ok := find(Check(s, Options{}), c.id)
		if !ok || f.Severity != c.sev {
			t.Errorf("%s: %s %v (found %v), want %s", c.name, c.id, f.Severity, ok, c.sev)
			continue
		}
		text := strings.ToLower(f.Title + " " + f.Why + " " + f.Fix + " " + evidenceText(f))
		for _, w := range c.says {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %s does not say %q: %s", c.name, c.id, w, text)
			}
		}
	}
}

func evidenceText(f finding.Finding) string {
	var b strings.Builder
	for _, e := range f.Evidence {
		b.WriteString(e.Name + " " + e.Value + " ")
	}
	return b.String()
}

// TestCoHostedPlan: no strict overcommit where software needs overcommit,
// THP kept where engines disagree, and inside a pod no kernel setting but
// the node's pool grown by what the pod lacks, never shrunk.
func TestCoHostedPlan(t *testing.T) {
	in := seed001()
	in.Host.Now = &HostNow{Sysctls: linux.Sysctls{"vm.overcommit_memory": "1"}, THP: linux.THP{Enabled: "always", Defrag: "madvise"},
		CommittedASBytes: new(GiB), Pools: []linux.HugePool{{PageSizeBytes: 2 * MiB, Node: -1, Reserved: new(uint64(0))}}}
	in.Software = []cohost.Software{redis, mongo8}
	r := Plan(in)
	notes := strings.Join(r.Notes, "\n")
	if r.Overcommit != nil || !strings.Contains(notes, "redis-server (pid 1020) needs vm.overcommit_memory=1") {
		t.Errorf("Redis here: overcommit %+v, notes %s", r.Overcommit, notes)
	}
	if s, ok := setting(r, finding.TargetSysfs, "/sys/kernel/mm/transparent_hugepage/enabled"); ok || !strings.Contains(notes, "kept at always") {
		t.Errorf("MongoDB 8 beside PostgreSQL: THP %+v, notes %s", s, notes)
	}
	in.Software = []cohost.Software{redis}
	if s, _ := setting(Plan(in), finding.TargetSysfs, "/sys/kernel/mm/transparent_hugepage/enabled"); s.Value != "never" || !strings.Contains(s.Formula, "postgresql 15 and redis") {
		t.Errorf("PostgreSQL and Redis: THP %+v", s)
	}
	in.InContainer = true
	in.Host.Now.Pools[0].Total, in.Host.Now.Pools[0].Free = 32768, 32768
	r = Plan(in)
	for _, s := range r.Settings {
		if s.Target == finding.TargetSysctl || s.Target == finding.TargetSysfs {
			t.Errorf("inside a pod, the node's setting %s = %s planned", s.Name, s.Value)
		}
	}
	in.Host.Now.Pools[0].Total, in.Host.Now.Pools[0].Free = 600, 100
	if s, _ := setting(Plan(in), finding.TargetSysctl, "vm.nr_hugepages"); s.Value != "1058" {
		t.Errorf("a node pool of 600 pages with 100 free, the pod needs 558: %+v, want 600 + 458", s)
	}
}

// TestWorstCaseFixFollowsTheHost: the worst-case finding's fix bounds the
// databases with strict overcommit only where overcommit.mode would advise
// it; beside Redis and an Erlang VM (this project's host) it names a memory
// limit per service instead, never the setting that would break them.
func TestWorstCaseFixFollowsTheHost(t *testing.T) {
	for _, c := range []struct {
		name   string
		sw     []cohost.Software
		strict bool
	}{
		{"dedicated", nil, true},
		{"beside Redis and RabbitMQ", []cohost.Software{redis, beam}, false},
		{"beside a JVM", []cohost.Software{jvm}, false},
	} {
		s := hostSnap(32 * GiB)
		s.Software = c.sw
		s.Postgres = append(s.Postgres, pgInstance(143*MiB, basePage, nil))
		f, ok := find(Check(s, Options{}), "memory.worst_case")
		if !ok {
			t.Fatalf("%s: no memory.worst_case finding", c.name)
		}
		if got := strings.Contains(f.Fix, "strict overcommit so"); got != c.strict {
			t.Errorf("%s: fix advises strict overcommit %v, want %v: %s", c.name, got, c.strict, f.Fix)
		}
		if !c.strict && !strings.Contains(f.Fix, "MemoryMax=") {
			t.Errorf("%s: fix names no memory limit: %s", c.name, f.Fix)
		}
	}
}
