package snapshot

import (
	"context"
	"time"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/sysv"
)

// Schema versions the JSON form of a Snapshot. Bump it when a field changes
// meaning or disappears; adding fields keeps the version.
//
// v2: a number the kernel or a server did not give is omitted (never 0):
// every meminfo field, the status and smaps_rollup figures, oom_score and
// oom_score_adj, cgroup usage, the pools' reserved and overcommit (nil on
// NUMA nodes). MemAvailable of a kernel without it is
// mem_available_estimate_bytes; pools have a source (sysfs or meminfo).
const Schema = "dbmem.snapshot/v2"

// Snapshot is everything dbmem read at one moment.
type Snapshot struct {
	Schema   string               `json:"schema"`
	TakenAt  time.Time            `json:"taken_at"`
	Elapsed  time.Duration        `json:"elapsed_ns"`
	Host     linux.Host           `json:"host"`
	Postgres []*postgres.Instance `json:"postgres"`
	// MySQL lists the running mysqld and mariadbd servers.
	MySQL []*mysql.Instance `json:"mysql,omitempty"`
	// SysV is the SysV shared memory of the reader's IPC namespace (Oracle's
	// SGA, MySQL's SHM_HUGETLB segments); nil without /proc/sysvipc/shm.
	SysV *sysv.Snapshot `json:"sysv,omitempty"`
	// Environment says whether dbmem itself runs in a container; Cgroups are
	// the cgroups (container, memory and hugetlb limits) of each PostgreSQL
	// postmaster (MySQL servers carry theirs).
	Environment linux.Environment  `json:"environment"`
	Cgroups     []linux.CgroupInfo `json:"cgroups,omitempty"`
	// Software is what runs beside the databases and changes memory
	// advice (Redis, MongoDB, JVMs, Erlang VMs, Oracle, kubelet).
	Software []cohost.Software `json:"software,omitempty"`
	// Poolers are the connection poolers running here (PgBouncer, pgcat,
	// Odyssey): their configuration and PgBouncer's pools.
	Poolers []*pooler.Pooler `json:"poolers,omitempty"`
	// Pss says whether Pss_Anon was measured for every process (with
	// smaps_rollup or the exact fast path, see Method) rather than RssAnon
	// standing in for it.
	Pss bool `json:"pss"`
	// Method is how private cost was measured: auto, fast, smaps or status.
	Method measure.Method `json:"method,omitempty"`
	// OOMGuard is what decides the databases' fate when memory runs out
	// beyond the kernel's OOM killer (Options.Guard): their units'
	// OOMPolicy and limits, systemd-oomd, earlyoom, panic_on_oom.
	OOMGuard *oomguard.Guard `json:"oom_guard,omitempty"`
	Gaps     []linux.Gap     `json:"gaps,omitempty"`
}

// Options choose what to read and how.
type Options struct {
	FS linux.FS
	// Live supplies settings from running servers (a postgres.Connector, or
	// a bundle); nil reads configuration files only.
	Live postgres.LiveSource
	// Method chooses how private cost (Pss_Anon) is measured:
	// measure.Auto (exact fast path, smaps_rollup where it is not
	// possible), measure.Fast, measure.Smaps (exact, but it walks page
	// tables: about 40 ms per backend with 3 GiB touched), measure.Status
	// (also ""). It is passed down unchanged; see resolveMethod.
	Method measure.Method
	// MySQLLive reads settings from running MySQL/MariaDB servers (a
	// mysql.Connector); nil reads their option files only.
	MySQLLive mysql.LiveSource
	// PoolerConsole reads PgBouncer's admin console (a pooler.Connector,
	// or a bundle's record); nil reads the poolers' files only.
	PoolerConsole pooler.ConsoleSource
	Now           func() time.Time
	// Skip names PostgreSQL processes to leave out: backends of dbmem's own
	// earlier connections that may still be exiting (see postgres.Options).
	Skip map[int]bool
	// Owners are who owned each instance (by server PID) when a capture
	// was taken: a replay cannot look at the captured host's files.
	Owners map[int]*servertrust.Ownership
	// Guard reads the OOM guard (OOMGuard): check, report and plan do;
	// watch and the exporter do at each discovery and carry it into their
	// status samples (sampler.Sampler.Guard). GuardRun runs
	// systemctl (default: the program, where systemd is PID 1).
	Guard    bool
	GuardRun oomguard.Runner
	// GuardRecorded, with Guard, is the guard as a bundle recorded it:
	// used as read, nothing is read again.
	GuardRecorded *oomguard.Guard
}

// Take reads the host and every instance. Only an unreadable /proc/meminfo
// or process list is an error; everything else missing becomes a gap.
func Take(ctx context.Context, o Options) (*Snapshot, error) {
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	start := time.Now()
	o.Method = resolveMethod(o)
	s := &Snapshot{Schema: Schema, TakenAt: now().UTC(), Pss: o.Method != measure.Status, Method: o.Method}
	host, gaps, err := linux.ReadHost(o.FS)
	if err != nil {
		return nil, err
	}
	s.Host, s.Gaps = host, gaps
	ins, gaps, err := postgres.Discover(ctx, o.FS, postgres.Options{
		Live: o.Live, Method: o.Method,
		Skip: o.Skip,
	})
	if err != nil {
		return nil, err
	}
	s.Postgres = ins
	s.Gaps = append(s.Gaps, gaps...)
	if err := s.readOthers(ctx, o); err != nil {
		return nil, err
	}
	s.readOwners(o)
	s.readPoolers(ctx, o)
	switch {
	case o.Guard && o.GuardRecorded != nil:
		s.OOMGuard = o.GuardRecorded
	case o.Guard:
		s.readGuard(ctx, o)
	}
	s.Elapsed = time.Since(start)
	return s, nil
}
