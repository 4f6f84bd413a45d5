package budget

import "github.com/dbmem/dbmem/internal/units"

// Constants of the budget, each stated in docs/check-plan.md.
const (
	// DefaultNodesPerQuery is how many sort or hash nodes an active query
	// runs at once: a hash join and a sort (the worst case, in
	// internal/advise, counts every node at hash_mem_multiplier).
	DefaultNodesPerQuery = 2
	// JITShare: JIT stays on only while its cost for every active session
	// is at most this share of the limit.
	JITShare = 0.10
	// RoleShare is the most of the limit one role's own work_mem may take
	// for its active sessions.
	RoleShare = 0.25
	// MaintenanceShare is the share of the limit for maintenance_work_mem
	// (PGTune and timescaledb-tune take RAM/16 and RAM/8 GiB x 128 MiB:
	// the same share, of the limit rather than of RAM).
	MaintenanceShare = 1.0 / 16
	// ConnectionShare: past this share of the limit taken by idle
	// backends' baseline, max_connections is lowered to what is used.
	ConnectionShare = 0.25
	// RoleStep rounds a role's spill up.
	RoleStep = 4 * units.MiB
	// AuxProcesses are the background processes of every instance
	// (checkpointer, background writer, walwriter, autovacuum launcher,
	// logical replication launcher), as in internal/advise.
	AuxProcesses = 5
)

// Limits PostgreSQL puts on the settings.
const (
	minWorkMem = 64 * units.KiB
	// maxMaintenance is where PGTune stops (before its 8 GB of 2026) and
	// timescaledb-tune stops (2047 MB): 2 GiB.
	maxMaintenance = 2 * units.GiB
	// vacuumCap: before PostgreSQL 17 autovacuum used at most 1 GB for
	// dead tuple identifiers, whatever it was given.
	vacuumCap = units.GiB
	// defaultMaintenance is PostgreSQL's default maintenance_work_mem.
	defaultMaintenance = 64 * units.MiB
)

// VersionDefault is what a what-if uses for a backend of a major version:
// the private cost (Pss_Anon) of an idle client backend after a first
// query, measured on a throwaway cluster of that version
// (TestVersionBaselines in internal/plan), and JIT's cost.
type VersionDefault struct {
	Major               int
	BaselineMedianBytes uint64
	BaselineP95Bytes    uint64
	Source              string
}

// JITCostBytes is what JIT compilation added to one backend (Pss_Anon,
// llvmjit loaded and one query compiled with inlining and optimisation),
// measured on PostgreSQL 15: 24.8 MiB (TestJITCost in internal/plan; the
// other versions' binaries here have no llvmjit).
const JITCostBytes = 25 * units.MiB

// versionDefaults: measured, see VersionDefault.
// Measured on this project's test host (10 idle backends after
// "SELECT count(*) FROM pg_class", exact Pss_Anon): 13.23, 14.23, 15.20
// (Debian), 16.14, 17.10, 18.4.
var versionDefaults = map[int]VersionDefault{
	13: {13, 1125 * units.KiB, 1297 * units.KiB, "measured on PostgreSQL 13"},
	14: {14, 1153 * units.KiB, 1322 * units.KiB, "measured on PostgreSQL 14"},
	15: {15, 1310 * units.KiB, 1494 * units.KiB, "measured on PostgreSQL 15"},
	16: {16, 1235 * units.KiB, 1377 * units.KiB, "measured on PostgreSQL 16"},
	17: {17, 1220 * units.KiB, 1386 * units.KiB, "measured on PostgreSQL 17"},
	18: {18, 1308 * units.KiB, 1496 * units.KiB, "measured on PostgreSQL 18"},
}

// DefaultFor is the what-if default of a major version: the nearest
// measured one (the newest for an unknown version).
func DefaultFor(major int) VersionDefault {
	if d, ok := versionDefaults[major]; ok {
		return d
	}
	best := versionDefaults[18]
	if major > 0 && major < 13 {
		best = versionDefaults[13]
	}
	best.Source += " (nearest measured version)"
	return best
}
