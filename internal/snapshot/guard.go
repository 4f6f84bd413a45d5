package snapshot

import (
	"context"

	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/postgres"
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
		// m.Unit is "" when no unit runs it (mysql.RunningUnit): nothing to audit
		ts = append(ts, oomguard.Target{Subject: GuardKey("mysql", m.DataDir), Comms: []string{"mysqld", "mariadbd"}, PID: m.PID, Unit: m.Unit})
	}
	s.OOMGuard = oomguard.Read(ctx, oomguard.Options{FS: o.FS, Run: o.GuardRun, Targets: ts})
}

// GuardKey is the Subject of an instance's unit audit: its engine and data
// directory.
func GuardKey(engine, dataDir string) string { return engine + ":" + dataDir }
