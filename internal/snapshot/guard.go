package snapshot

import (
	"context"
	"strings"

	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/unitname"
)

// readGuard reads what decides the databases' fate when memory runs out
// (oomguard): their units' settings, systemd-oomd, earlyoom and the
// kernel's OOM sysctls.
func (s *Snapshot) readGuard(ctx context.Context, o Options) {
	var ts []oomguard.Target
	for _, in := range s.Postgres {
		// in.Unit is "" when no unit runs it (pg_ctl, a test cluster): nothing to audit
		ts = append(ts, oomguard.Target{Subject: GuardKey("postgresql", in.DataDir), Comms: postgres.ServerComms, PID: in.PostmasterPID, Unit: in.Unit})
	}
	for _, m := range s.MySQL {
		t := oomguard.Target{Subject: GuardKey("mysql", m.DataDir), Comms: []string{"mysqld", "mariadbd"}, PID: m.PID}
		if strings.TrimSuffix(m.DataDir, "/") == "/var/lib/mysql" {
			t.Candidates = unitname.MySQL(string(m.Flavor)) // the packages' data directory
		}
		if m.Cgroup != nil && m.Cgroup.Unit != "" {
			t.Unit = m.Cgroup.Unit
		}
		ts = append(ts, t)
	}
	s.OOMGuard = oomguard.Read(ctx, oomguard.Options{FS: o.FS, Run: o.GuardRun, Targets: ts})
}

// GuardKey is the Subject of an instance's unit audit: its engine and data
// directory.
func GuardKey(engine, dataDir string) string { return engine + ":" + dataDir }
