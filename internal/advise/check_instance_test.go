package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

func TestInstanceChecks(t *testing.T) {
	const none = finding.Severity(-1)
	type setup func(s *snapshot.Snapshot, in *postgres.Instance)
	for _, c := range []struct {
		name  string
		ram   uint64
		inst  *postgres.Instance
		mut   setup
		id    string
		want  finding.Severity
		title string
	}{
		{"tiny test cluster, try fell back", 24 * GiB, pgInstance(143*MiB, basePage, nil), nil, "hugepages.fallback", finding.Notice, "fell back"},
		{"tiny test cluster: no page table alarm", 24 * GiB, pgInstance(143*MiB, basePage, nil), nil, "pagetables.projected", none, ""},
		{"tiny cluster, huge_pages=off", 24 * GiB, pgInstance(143*MiB, basePage, postgres.Settings{"huge_pages": pgSet("off")}), nil, "hugepages.off", finding.Info, ""},
		{"4 GiB segment, off", 24 * GiB, pgInstance(4*GiB, basePage, postgres.Settings{"huge_pages": pgSet("off"), "max_connections": pgSet("20")}), nil, "hugepages.off", finding.Notice, "4 KiB pages"},
		{"4 GiB segment, 120 connections: page tables warn", 24 * GiB, pgInstance(4*GiB, basePage, postgres.Settings{"huge_pages": pgSet("off"), "max_connections": pgSet("120")}), nil, "hugepages.off", finding.Warning, ""},
		{"seed 000: 80 connections x 156 GiB on 192 GiB", 192 * GiB, pgInstance(156*GiB, basePage, postgres.Settings{"max_connections": pgSet("80")}), nil, "pagetables.projected", finding.Critical, "at max_connections=80"},
		{"seed 000 in huge pages: no alarm", 192 * GiB, pgInstance(156*GiB, 2*MiB, postgres.Settings{"max_connections": pgSet("80")}), nil, "pagetables.projected", none, ""},
		{"seed 001: 500 connections x 1.07 GiB on 4.8 GiB", 5016896 * KiB, pgInstance(1094*MiB, basePage, postgres.Settings{"max_connections": pgSet("500")}), nil, "pagetables.projected", finding.Critical, ""},
		{"48 GiB shared, 80 connections on 192 GiB", 192 * GiB, pgInstance(48*GiB, basePage, postgres.Settings{"max_connections": pgSet("80")}), nil, "pagetables.projected", finding.Warning, ""},
		{"huge pages in use", 24 * GiB, pgInstance(4*GiB, 2*MiB, postgres.Settings{"huge_pages": pgSet("on")}), nil, "hugepages.fallback", none, ""},
		{"huge pages in use with try", 24 * GiB, pgInstance(4*GiB, 2*MiB, nil), nil, "hugepages.try", finding.Notice, ""},
		{"sysv with try", 24 * GiB, pgInstance(GiB, basePage, postgres.Settings{"shared_memory_type": pgSet("sysv")}), nil, "hugepages.sysv", finding.Warning, ""},
		{"pool too small for try", 24 * GiB, pgInstance(143*MiB, basePage, postgres.Settings{"shared_memory_size_in_huge_pages": pgSet("72")}),
			func(s *snapshot.Snapshot, _ *postgres.Instance) { pool(50, 50, 0)(s) }, "hugepages.pool_too_small", finding.Warning, "50 pages available, the instance needs 72"},
		{"pool big enough but not used: fell back for another reason", 24 * GiB, pgInstance(143*MiB, basePage, postgres.Settings{"shared_memory_size_in_huge_pages": pgSet("72")}),
			func(s *snapshot.Snapshot, _ *postgres.Instance) { pool(100, 100, 0)(s) }, "hugepages.pool_too_small", none, ""},
		{"shared_buffers 60% of RAM", 32 * GiB, pgInstance(20*GiB, 2*MiB, postgres.Settings{"shared_buffers": pgSet("19GB", 19*GiB)}), nil, "memory.cache_share", finding.Warning, ""},
		{"shared_buffers 45% of RAM", 32 * GiB, pgInstance(15*GiB, 2*MiB, postgres.Settings{"shared_buffers": pgSet("14GB", 14*GiB+500*MiB)}), nil, "memory.cache_share", finding.Notice, ""},
		{"shared_buffers 25% of RAM", 32 * GiB, pgInstance(8*GiB, 2*MiB, postgres.Settings{"shared_buffers": pgSet("8GB", 8*GiB)}), nil, "memory.cache_share", none, ""},
		{"default settings: worst case well under RAM", 24 * GiB, pgInstance(143*MiB, basePage, nil), nil, "memory.worst_case", finding.Info, ""},
		{"seed 001 work_mem 64MB x 500 connections on 4.8 GiB", 5016896 * KiB, pgInstance(1094*MiB, 2*MiB,
			postgres.Settings{"max_connections": pgSet("500"), "work_mem": pgSet("64MB", 64*MiB)}), nil, "memory.worst_case", finding.Warning, ""},
		{"cgroup limit below the worst case", 64 * GiB, pgInstance(GiB, basePage, postgres.Settings{"max_connections": pgSet("200")}),
			func(_ *snapshot.Snapshot, in *postgres.Instance) {
				lim := uint64(4 * GiB)
				in.Cgroup = &linux.CgroupMemory{Version: 2, LimitBytes: &lim, LimitPath: "/system.slice/postgresql.service"}
			}, "memory.worst_case", finding.Warning, "exceeds the cgroup limit 4 GiB"},
		{"postmaster unprotected", 24 * GiB, pgInstance(143*MiB, basePage, nil), nil, "oom.postmaster_unprotected", finding.Notice, "oom_score_adj 0"},
		{"postmaster protected, children inherit", 24 * GiB, pgInstance(143*MiB, basePage, nil), func(_ *snapshot.Snapshot, in *postgres.Instance) {
			in.Processes[0].OOMScoreAdj = new(-900)
			in.Processes = append(in.Processes, proc(101, postgres.RoleCheckpointer, 30*MiB, 20*MiB, -900), proc(102, postgres.RoleClient, 10*MiB, 1*MiB, 0))
		}, "oom.children_protected", finding.Warning, "1 of 2 child processes"},
		{"postmaster protected, children reset", 24 * GiB, pgInstance(143*MiB, basePage, nil), func(_ *snapshot.Snapshot, in *postgres.Instance) {
			in.Processes[0].OOMScoreAdj = new(-1000)
			in.Processes = append(in.Processes, proc(101, postgres.RoleCheckpointer, 30*MiB, 20*MiB, 0))
		}, "oom.children_protected", none, ""},
	} {
		s := hostSnap(c.ram)
		s.Postgres = []*postgres.Instance{c.inst}
		if c.mut != nil {
			c.mut(s, c.inst)
		}
		fs := Check(s, Options{})
		f, ok := find(fs, c.id)
		switch {
		case c.want < 0 && ok:
			t.Errorf("%s: unexpected %s %s: %s", c.name, f.Severity, c.id, f.Title)
		case c.want >= 0 && (!ok || f.Severity != c.want):
			t.Errorf("%s: %s at %v (present %v), want %s: %s", c.name, c.id, f.Severity, ok, c.want, f.Title)
		case ok && !strings.Contains(f.Title, c.title):
			t.Errorf("%s: title %q lacks %q", c.name, f.Title, c.title)
		}
		if ok && (f.Why == "" || f.Fix == "" || len(f.Evidence) == 0 || f.Subject == "") {
			t.Errorf("%s: %s lacks why, fix, evidence or subject: %+v", c.name, c.id, f)
		}
	}
}

func TestOOMRanking(t *testing.T) {
	s := hostSnap(24 * GiB)
	in := pgInstance(4*GiB, basePage, nil)
	in.Processes = append(in.Processes,
		proc(101, postgres.RoleCheckpointer, 4*GiB+20*MiB, 4*GiB, 0),
		proc(102, postgres.RoleClient, 300*MiB, 200*MiB, 0))
	s.Postgres = []*postgres.Instance{in}
	f, ok := find(Check(s, Options{}), "oom.ranking")
	if !ok || f.Severity != finding.Warning || !strings.Contains(f.Title, "pid 101 postgres checkpointer") || !strings.Contains(f.Title, "4 GiB of shared memory") {
		t.Fatalf("checkpointer with 4 GiB RssShmem: %+v", f)
	}
	if !strings.HasPrefix(f.Evidence[0].Name, "#1 pid 101") || !strings.HasPrefix(f.Evidence[1].Name, "#2 pid 102") {
		t.Errorf("ranking order: %+v", f.Evidence)
	}
	// The same instance in huge pages: the checkpointer's RSS is small.
	java := other(7, "java", 6*GiB, 0)
	initp := other(1, "systemd", 60*GiB, 0)
	kthread := linux.Process{PID: 2, Comm: "kthreadd"}
	shielded := other(8, "sshd", 50*GiB, -1000)
	procs := []linux.Process{initp, kthread, java, shielded}
	for _, p := range in.Processes {
		procs = append(procs, p.Process)
	}
	f, _ = find(Check(s, Options{Processes: procs}), "oom.ranking")
	if f.Severity != finding.Info || !strings.Contains(f.Title, "pid 7 java") || !strings.Contains(f.Evidence[1].Name, "checkpointer") {
		t.Errorf("with the host's processes: %s %s %+v", f.Severity, f.Title, f.Evidence)
	}
	for _, e := range f.Evidence {
		if strings.Contains(e.Name, "pid 1 ") || strings.Contains(e.Name, "pid 2 ") || strings.Contains(e.Name, "pid 8 ") {
			t.Errorf("ineligible process ranked: %s", e.Name)
		}
	}
}

func TestBadnessAndScore(t *testing.T) {
	total := uint64(24*GiB) / basePage
	p := linux.Process{PID: 10, OOMScoreAdj: new(0), Status: status(60*MiB, 0, 232*KiB)}
	b, ok := Badness(p, total)
	if !ok || b != int64((60*MiB+232*KiB)/4096) {
		t.Fatalf("badness %d %v", b, ok)
	}
	// Like the fixture's postmaster: 60.8 MiB RSS on 23.5 GiB printed 668.
	if got := OOMScore(b, total); got != 668 {
		t.Errorf("score %d, want 668", got)
	}
	p.OOMScoreAdj = new(-900)
	if b, _ = Badness(p, total); OOMScore(b, total) != 68 {
		t.Errorf("adj -900: score %d, want 68", OOMScore(b, total))
	}
	p.OOMScoreAdj = new(1000)
	if b, _ = Badness(p, total); OOMScore(b, total) < 1330 {
		t.Errorf("adj 1000: score %d, want above 1330", OOMScore(b, total))
	}
}

// TestOOMScoreByKernel: rhel7-pg11-3.10's checkpointer (3.83 GiB of RSS,
// 7.76 MiB of page tables, 15.5 GiB of RAM and 7.87 GiB of swap): 3.10
// prints badness x 1000 / totalpages = 164, 5.9+ would print 776.
func TestOOMScoreByKernel(t *testing.T) {
	total := uint64(16264568+8257532) * KiB / basePage
	b := int64(1005997)
	for _, c := range []struct {
		release string
		want    int64
	}{
		{"3.10.0-1160.el7.x86_64", 164}, {"4.18.0-513.el8.x86_64", 164}, {"5.8.18", 164},
		{"5.9.0", 776}, {"6.18.0", 776}, {"", 776},
	} {
		if got := OOMScoreFor(b, total, OOMFormulaFor(c.release)); got != c.want {
			t.Errorf("kernel %q: oom_score %d, want %d", c.release, got, c.want)
		}
	}
	if got := OOMScoreFor(-5, total, OOMScoreLegacy); got != 0 {
		t.Errorf("legacy, badness clamped to 1: %d", got)
	}
}

func TestSortAndFilter(t *testing.T) {
	s := hostSnap(192 * GiB)
	s.Host.Meminfo.PageTablesBytes = new(25 * GiB)
	s.Host.Sysctls["vm.overcommit_memory"] = "0"
	s.Postgres = []*postgres.Instance{pgInstance(143*MiB, basePage, nil)}
	fs := Check(s, Options{})
	for i := 1; i < len(fs); i++ {
		if fs[i].Severity > fs[i-1].Severity {
			t.Fatalf("not sorted: %s before %s", fs[i-1].ID, fs[i].ID)
		}
	}
	if w, ok := Worst(fs); !ok || w != finding.Critical || fs[0].ID != "pagetables.now" {
		t.Errorf("worst %v, first %s", w, fs[0].ID)
	}
	for _, f := range Check(s, Options{MinSeverity: finding.Notice}) {
		if f.Severity < finding.Notice {
			t.Errorf("MinSeverity notice kept %s %s", f.Severity, f.ID)
		}
	}
	if _, ok := Worst(nil); ok {
		t.Error("Worst of no findings")
	}
}
