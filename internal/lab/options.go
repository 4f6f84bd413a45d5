package lab

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// Mode is a huge_pages setting the experiment runs with.
type Mode string

// The two settings compared.
const (
	ModeOff Mode = "off"
	ModeOn  Mode = "on"
)

// Common are the options every experiment has.
type Common struct {
	// Bin is the PostgreSQL binary directory (--pg-bin); "" finds one.
	Bin string
	// BaseDir holds the throwaway cluster (default os.TempDir()).
	BaseDir string
	// Quick sizes everything for CI.
	Quick bool
	// FS is where /proc and /sys are read and written (the live host).
	FS linux.FS
	// LockPath is the machine-wide lock taken while the host is changed;
	// "" when the caller already holds it (tests hold it through
	// internal/kerneltest). JournalPath records changes to undo if the
	// lab is killed: the same lock and journal for every experiment, so a
	// killed one is undone by the next of any.
	LockPath, JournalPath string
	// Progress reports the long steps (nil: silent).
	Progress Progress
}

// Options choose the experiment. Zero values take defaults sized to the
// host (see Resolve); Quick takes about a minute.
type Options struct {
	Common
	// SharedBuffersBytes is shared_buffers; 0: min(25% of MemAvailable,
	// DefaultSharedBuffersCap), 1 GiB with Quick.
	SharedBuffersBytes uint64
	// Connections is N, the idle connections that each read the table;
	// 0: 100, 25 with Quick.
	Connections int
	// Modes are the huge_pages settings to compare (default off and on).
	Modes []Mode
	// BenchRuns is the pgbench select-only runs per mode, alternating off
	// and on; 0: 2, 1 with Quick. NoBench skips them.
	BenchRuns     int
	NoBench       bool
	BenchDuration time.Duration // default 15 s, 5 s with Quick
	BenchClients  int           // default 4
	Settle        SettleOptions
}

// Default paths. The lock is the one internal/kerneltest takes, so a lab run
// and the tests never change the pool at the same time. Both live in root's
// runtime state directory (hostchange.RuntimeDir, /run/dbmem), which only
// root can write and which is emptied at boot, as is the kernel's huge page
// pool; another user's lab (--modes off) keeps its own.
var (
	DefaultLockPath    = hostchange.RuntimePath(hostchange.KernelLock)
	DefaultJournalPath = hostchange.RuntimePath(hostchange.LabJournal)
)

// Config is the experiment as run, defaults resolved.
type Config struct {
	Quick              bool    `json:"quick"`
	SharedBuffersBytes uint64  `json:"shared_buffers_bytes"`
	Connections        int     `json:"connections"`
	MaxConnections     int     `json:"max_connections"`
	Modes              []Mode  `json:"modes"`
	Scale              int     `json:"pgbench_scale"`
	Fillfactor         int     `json:"fillfactor"`
	BenchRuns          int     `json:"bench_runs"`
	BenchSeconds       float64 `json:"bench_seconds"`
	BenchClients       int     `json:"bench_clients"`
}

// Fillfactor of pgbench_accounts: about 6 rows per 8 KiB page, so a reader's
// full scan costs mapping the pages, not counting rows, and 100 readers
// finish in minutes.
const Fillfactor = 10

// BytesPerScale is pgbench_accounts per unit of scale with Fillfactor 10
// (measured: scale 25 = 3,413,336,064 bytes, PostgreSQL 15).
const BytesPerScale = 136533442

// DefaultSharedBuffersCap bounds the default shared_buffers. The lab's time
// goes into the huge_pages=off readers: each maps the whole table through
// 4 KiB pages, about 1.8 s per GiB and reader with two readers at a time
// (measured on 2 cores, kernel 6.18), so 100 readers cost about 3 minutes
// per GiB of table. 1.5 GiB (a 1.14 GiB table) keeps the default run under
// 10 minutes on a 2-core host that is busy with other work too.
const DefaultSharedBuffersCap = 1536 << 20

// Resolve fills the defaults from the host's meminfo.
func Resolve(o Options, m Mem) (Config, error) {
	c := Config{Quick: o.Quick, SharedBuffersBytes: o.SharedBuffersBytes, Connections: o.Connections,
		Modes: o.Modes, Fillfactor: Fillfactor, BenchRuns: o.BenchRuns, BenchClients: o.BenchClients}
	capB, quarter := uint64(DefaultSharedBuffersCap), m.MemAvailableBytes/4
	conns, runs, secs := 100, 2, 15.0
	if o.Quick {
		capB, conns, runs, secs = units.GiB, 25, 1, 5
	}
	if c.SharedBuffersBytes == 0 {
		c.SharedBuffersBytes = min(capB, quarter) / (128 << 20) * (128 << 20)
	}
	if c.Connections == 0 {
		c.Connections = conns
	}
	if len(c.Modes) == 0 {
		c.Modes = []Mode{ModeOff, ModeOn}
	}
	c.BenchRuns = cmp.Or(c.BenchRuns, runs)
	if o.NoBench {
		c.BenchRuns = 0
	}
	c.BenchSeconds = secs
	if o.BenchDuration > 0 {
		c.BenchSeconds = o.BenchDuration.Seconds()
	}
	c.BenchClients = cmp.Or(c.BenchClients, 4)
	c.MaxConnections = c.Connections + c.BenchClients + 10
	c.Scale = max(1, int(math.Round(0.8*float64(c.SharedBuffersBytes)/BytesPerScale)))
	return c, c.validate()
}

func (c Config) validate() error {
	switch {
	case c.SharedBuffersBytes < 128<<20:
		return fmt.Errorf("shared_buffers %s is too small for the experiment: at least 128 MiB (is MemAvailable that low?)", units.Bytes(c.SharedBuffersBytes))
	case c.Connections < 1 || c.Connections > 5000:
		return fmt.Errorf("connections %d: choose 1 to 5000", c.Connections)
	case c.BenchClients < 1 || c.BenchRuns < 0 || c.BenchSeconds < 1:
		return fmt.Errorf("pgbench runs need at least 1 client and 1 second")
	}
	for _, m := range c.Modes {
		if m != ModeOff && m != ModeOn {
			return fmt.Errorf("huge_pages mode %q: use off and/or on", m)
		}
	}
	return nil
}

// TableBytes is the expected size of pgbench_accounts.
func (c Config) TableBytes() uint64 { return uint64(c.Scale) * BytesPerScale }

// Has reports whether the mode is part of the experiment.
func (c Config) Has(m Mode) bool { return slices.Contains(c.Modes, m) }
