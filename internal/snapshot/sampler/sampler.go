package sampler

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Mode says how much a sample reads.
type Mode int

// Modes, cheapest first.
const (
	// Status reads the host files and every process's status, stat, cmdline
	// and oom_score; instances and settings come from the last discovery.
	Status Mode = iota
	// Discover also finds instances again and reads their settings (a
	// connection to each server where one can be made).
	Discover
	// Smaps is Discover plus smaps_rollup of every database process: exact
	// Pss_Anon, at the price of a page-table walk per process.
	Smaps
)

func (m Mode) String() string {
	return [...]string{"status", "discover", "smaps"}[m]
}

// Checker judges a snapshot and returns its findings: the diagnose engine,
// advise.Check, with its options bound (advise.Checker). procs is every process on the host
// (for the OOM ranking). Nil means no findings.
type Checker func(s *snapshot.Snapshot, procs []linux.Process) []finding.Finding

// Cost is what one sample cost the host: CPU time of the reading thread
// (user + system, which includes the kernel's page-table walks) and
// wall-clock time.
type Cost struct {
	CPU  time.Duration `json:"cpu_ns"`
	Wall time.Duration `json:"wall_ns"`
}

// Sample is what one tick read.
type Sample struct {
	Mode Mode `json:"mode"`
	// Snapshot holds the host and every instance with fresh processes; its
	// Pss is true only on a Smaps sample.
	Snapshot *snapshot.Snapshot `json:"snapshot"`
	// Processes is every user-space process on the host, status only.
	Processes []linux.Process   `json:"processes"`
	VMStat    linux.VMStat      `json:"vmstat"`
	Findings  []finding.Finding `json:"findings"`
	Cost      Cost              `json:"cost"`
	// Backends is each connected instance's pg_stat_activity with queries,
	// by postmaster PID, when the Sampler has a BackendSource.
	Backends map[int][]postgres.BackendActivity `json:"-"`
}

// Sampler reads samples. It keeps the last discovery (instances, settings,
// shared segment) so that a Status sample does not search and connect
// again. Safe for concurrent use.
type Sampler struct {
	FS   linux.FS
	Live postgres.LiveSource // nil: settings from configuration files
	// MySQLLive reads MySQL/MariaDB settings over SQL; nil: option files.
	MySQLLive mysql.LiveSource
	Check     Checker          // nil: no findings
	Now       func() time.Time // nil: time.Now
	// Backends, when set, reads every backend's activity and query at each
	// sample (the per-backend view).
	Backends BackendSource
	// Method is how a Smaps sample measures Pss_Anon: "" reads
	// smaps_rollup; measure.Auto takes the exact fast path
	// (/proc/kpagecount, root) and smaps_rollup where it cannot. Other
	// samples read status only.
	Method measure.Method
	// Guard reads the OOM guard (systemd units, oomd, earlyoom, the OOM
	// sysctls) at each discovery, as check does; status samples carry it
	// from the last discovery. Off for a copied tree or a bundle.
	Guard bool

	mu   sync.Mutex
	base *snapshot.Snapshot
	// mysqlSeen are the MySQL server processes at the last discovery,
	// instances or not (a transient mysqld is none): another set means
	// discover again.
	mysqlSeen map[ProcKey]bool
	procs     procReader
	// sessions holds the backends of dbmem's own connections (one per
	// discovery and instance) until they are gone: a backend takes a moment
	// to exit after its client closed, and must not count as a connection.
	sessions map[int]bool
}

// Sample reads the host once. A Status sample becomes a Discover sample when
// there was no discovery yet or the set of postmasters changed.
func (s *Sampler) Sample(ctx context.Context, mode Mode) (*Sample, error) {
	var out *Sample
	var err error
	cost := timed(func() { out, err = s.read(ctx, mode) })
	if err != nil {
		return nil, err
	}
	out.Cost = cost
	return out, nil
}

// read reads the host through s.FS with ctx: once ctx ends, every read
// fails at once and the sample is abandoned (an error, and nothing of it
// kept for the next sample).
func (s *Sampler) read(ctx context.Context, mode Mode) (*Sample, error) {
	fs := s.FS.WithContext(ctx)
	procs, gaps, err := s.ReadProcesses(ctx, fs)
	if err != nil {
		return nil, err
	}
	skip := s.LiveSessions(procs)
	out := &Sample{Mode: mode, Processes: procs}
	if out.VMStat, err = linux.ReadVMStat(fs); err != nil {
		gaps = append(gaps, linux.Gap{What: "/proc/vmstat (swap in/out)", Why: err.Error(), Kind: linux.KindOf(err)})
	}
	base, seen := s.LastBase()
	if mode == Status && (base == nil || TopologyChanged(base, procs) || !maps.Equal(seen, mysqlServers(procs))) {
		out.Mode = Discover
	}
	if out.Mode == Status {
		out.Snapshot, err = Rebuild(fs, base, procs, skip, s.Time())
	} else {
		out.Snapshot, err = s.discover(ctx, fs, out.Mode == Smaps, skip, mysqlServers(procs))
	}
	if err == nil {
		err = abandoned(ctx)
	}
	if err != nil {
		return nil, err
	}
	var sessions []int
	var bgaps []linux.Gap
	out.Backends, sessions, bgaps = s.ReadBackends(ctx, out.Snapshot.Postgres)
	s.noteSessions(sessions)
	gaps = append(gaps, bgaps...)
	out.Snapshot.Gaps = append(out.Snapshot.Gaps, gaps...)
	if s.Check != nil {
		out.Findings = s.Check(out.Snapshot, out.Processes)
	}
	return out, nil
}

func (s *Sampler) discover(ctx context.Context, fs linux.FS, pss bool, skip map[int]bool, mysqlSeen map[ProcKey]bool) (*snapshot.Snapshot, error) {
	o := snapshot.Options{FS: fs, Live: s.Live, MySQLLive: s.MySQLLive, Method: s.sampleMethod(pss), Now: s.Now, Skip: skip, Guard: s.Guard}
	snap, err := snapshot.Take(ctx, o)
	if err == nil {
		err = abandoned(ctx) // a discovery cut short is never the base of the next samples
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.base, s.mysqlSeen = snap, mysqlSeen
	for _, in := range snap.Postgres {
		if in.SessionPID > 0 {
			if s.sessions == nil {
				s.sessions = map[int]bool{}
			}
			s.sessions[in.SessionPID] = true
		}
	}
	return snap, nil
}

// noteSessions remembers backends of dbmem's own connections.
func (s *Sampler) noteSessions(pids []int) {
	if len(pids) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions == nil {
		s.sessions = map[int]bool{}
	}
	for _, pid := range pids {
		s.sessions[pid] = true
	}
}

// LiveSessions forgets the sessions that are gone from procs and returns
// the others: backends of dbmem's own connections that are still exiting.
func (s *Sampler) LiveSessions(procs []linux.Process) map[int]bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.sessions) == 0 {
		return nil
	}
	alive := map[int]bool{}
	for _, p := range procs {
		if s.sessions[p.PID] {
			alive[p.PID] = true
		}
	}
	s.sessions = alive
	return maps.Clone(alive) // a discovery adds to s.sessions meanwhile
}

// ReadProcesses reads every user-space process of the host, status only.
func (s *Sampler) ReadProcesses(ctx context.Context, fs linux.FS) ([]linux.Process, []linux.Gap, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs.read(ctx, fs)
}

// abandoned is the error of a sample whose context ended while it was
// read: what it read is incomplete, and is dropped.
func abandoned(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sample abandoned before it was complete: %w", err)
	}
	return nil
}

// LastBase is the last discovery and the MySQL servers seen then.
func (s *Sampler) LastBase() (*snapshot.Snapshot, map[ProcKey]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.base, s.mysqlSeen
}

// Time is the sampler's clock: Now, else time.Now.
func (s *Sampler) Time() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// sampleMethod is the method of one discovery: s.Method (smaps_rollup when
// unset) for a Smaps sample, status for the others.
func (s *Sampler) sampleMethod(pss bool) measure.Method {
	switch {
	case !pss:
		return measure.Status
	case s.Method == "":
		return measure.Smaps
	}
	return s.Method
}
