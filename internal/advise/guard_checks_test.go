package advise

import (
	"testing"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

func v(val, from string) oomguard.Value { return oomguard.Value{Value: val, From: from} }

// guardSnap is a host with PostgreSQL 18 under Debian's
// postgresql@18-main.service as oomguard reads it from the unit files.
func guardSnap(kernel string, values map[string]oomguard.Value, g oomguard.Guard) *snapshot.Snapshot {
	s := hostSnap(16 * GiB)
	s.Host.KernelRelease = kernel
	in := pgInstance(1*GiB, basePage, postgres.Settings{"io_method": pgSet("io_uring"), "max_connections": pgSet("1000")})
	in.DataDir, in.Major = "/var/lib/postgresql/18/main", 18
	s.Postgres = []*postgres.Instance{in}
	u := oomguard.UnitAudit{Subject: snapshot.GuardKey("postgresql", in.DataDir), Unit: "postgresql@18-main.service", Source: "unit files",
		Slice: "system.slice", Values: map[string]oomguard.Value{"OOMPolicy": v("stop", oomguard.FromDefault),
			"Restart": v("no", oomguard.FromDefault), "LimitMEMLOCK": v("8388608", oomguard.FromDefault),
			"ManagedOOMPreference": v("none", oomguard.FromDefault)}, SliceValues: map[string]oomguard.Value{}}
	for k, x := range values {
		u.Values[k] = x
	}
	g.Units = []oomguard.UnitAudit{u}
	s.OOMGuard = &g
	return s
}

func TestOOMPolicyStopFlaggedAndFixed(t *testing.T) {
	fs := Check(guardSnap("6.1.0", nil, oomguard.Guard{}), Options{})
	f, ok := find(fs, "systemd.oom_policy_stop")
	if !ok || f.Severity != finding.Warning || len(f.Settings) != 1 || f.Settings[0].Name != "OOMPolicy" || f.Settings[0].Value != "continue" ||
		f.Settings[0].Unit != "postgresql@18-main.service" {
		t.Fatalf("finding %+v", f)
	}
	fs = Check(guardSnap("6.1.0", map[string]oomguard.Value{"OOMPolicy": v("continue", "/etc/x.conf")}, oomguard.Guard{}), Options{})
	if _, ok := find(fs, "systemd.oom_policy_stop"); ok {
		t.Error("OOMPolicy=continue flagged")
	}
}

func TestOomdEarlyoomAndPanic(t *testing.T) {
	one := 1
	g := oomguard.Guard{Oomd: oomguard.Oomd{Running: true, PID: 700, SwapUsedLimit: v("90%", oomguard.FromDefault)},
		Earlyoom:   oomguard.Earlyoom{Running: true, PID: 800, Avoid: "(^|/)(init|systemd.*|Xorg|sshd)$", MemPercent: "10", SwapPercent: "10"},
		PanicOnOOM: &one}
	s := guardSnap("6.1.0", nil, g)
	s.OOMGuard.Units[0].SliceValues["ManagedOOMSwap"] = v("kill", "/usr/lib/systemd/system/-.slice.d/10-oomd-root-slice-defaults.conf")
	fs := Check(s, Options{})
	for id, sev := range map[string]finding.Severity{"systemd.oomd_manages_database": finding.Warning, "earlyoom.not_avoiding_database": finding.Warning,
		"kernel.panic_on_oom": finding.Critical} {
		if f, ok := find(fs, id); !ok || f.Severity != sev {
			t.Errorf("%s: %+v (found %v)", id, f, ok)
		}
	}
	if f, _ := find(fs, "systemd.oomd_manages_database"); f.Settings[0].Name != "ManagedOOMPreference" || f.Settings[0].Value != "avoid" {
		t.Errorf("oomd setting %+v", f.Settings)
	}
	s.OOMGuard.Earlyoom.Avoid = "^(postgres|mysqld|mariadbd)$"
	s.OOMGuard.Units[0].Values["ManagedOOMPreference"] = v("avoid", "/etc/x.conf")
	fs = Check(s, Options{})
	if _, ok := find(fs, "earlyoom.not_avoiding_database"); ok {
		t.Error("earlyoom avoiding postgres still flagged")
	}
	if _, ok := find(fs, "systemd.oomd_manages_database"); ok {
		t.Error("ManagedOOMPreference=avoid still flagged")
	}
}

// PostgreSQL 18 with io_uring and 1000 connections needs about 8 MiB of
// rings (Zulip measured 8-13 MiB): over systemd's 8 MiB default on 6.14+.
func TestIoUringMemlock(t *testing.T) {
	need, ok := IoUringFor(guardSnap("", nil, oomguard.Guard{}).Postgres[0].Settings)
	if !ok || need.Entries != 64 || need.RingBytes != 8192 || need.NeedBytes < 8*MiB || need.NeedBytes > 9*MiB {
		t.Fatalf("need %+v", need)
	}
	fs := Check(guardSnap("6.14.2", nil, oomguard.Guard{}), Options{})
	f, ok := find(fs, "postgres.io_uring_memlock")
	if !ok || f.Severity != finding.Critical || f.Settings[0].Name != "LimitMEMLOCK" || f.Settings[0].Value != "17825792" {
		t.Fatalf("finding %+v", f)
	}
	if f, _ := find(Check(guardSnap("6.8.0", nil, oomguard.Guard{}), Options{}), "postgres.io_uring_memlock"); f.Severity != finding.Warning {
		t.Errorf("before 6.14: %+v", f)
	}
	two := 2
	if _, ok := find(Check(guardSnap("6.14.2", nil, oomguard.Guard{IoUringDisabled: &two}), Options{}), "postgres.io_uring_disabled"); !ok {
		t.Error("io_uring_disabled=2 not flagged")
	}
	if _, ok := find(Check(guardSnap("6.14.2", map[string]oomguard.Value{"LimitMEMLOCK": v("infinity", "x")}, oomguard.Guard{}), Options{}), "postgres.io_uring_memlock"); ok {
		t.Error("LimitMEMLOCK=infinity flagged")
	}
}

func TestGuardSettingsAndServiceBudget(t *testing.T) {
	one := 1
	st := GuardSettings(guardSnap("6.14.2", nil, oomguard.Guard{PanicOnOOM: &one, OOMKillAllocatingTask: &one}))
	names := map[string]string{}
	for _, s := range st {
		names[s.Name] = s.Value
	}
	if names["OOMPolicy"] != "continue" || names["LimitMEMLOCK"] == "" || names["vm.panic_on_oom"] != "0" || names["vm.oom_kill_allocating_task"] != "0" {
		t.Fatalf("settings %+v", st)
	}
	m := ServiceMemorySettings([]ServiceBudget{{Unit: "postgresql@18-main.service", Bytes: 6 * GiB, Formula: "budget"}})
	if len(m) != 2 || m[0].Name != "MemoryHigh" || m[0].Value != "6144M" || m[1].Name != "MemoryMax" || m[1].Value != "6759M" {
		t.Fatalf("memory settings %+v", m)
	}
}
