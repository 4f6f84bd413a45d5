// Package budget is the database's half of a host's memory: what a
// database server may spend beyond its shared memory (the limit), what it
// will spend at the settings it proposes under the concurrency measured on
// the server (the lines, their total), the settings that bound it (each
// with its formula and evidence), per-role settings for the roles whose
// queries spill to disk, and what the common rules of thumb (PGTune,
// timescaledb-tune) would set for the same host, with why dbmem's numbers
// differ.
//
// It is pure: no I/O. The limit, the lines, the peers and the settings
// (Line, Setting, Peer, Result) are engine-neutral (limit.go, types.go,
// solve.go, text.go): MySQL's per-thread budget can return the same
// Result. PostgreSQL's input, formulas and per-version defaults (measured,
// docs/check-plan.md) are in postgres*.go, its peers in pgtune.go and
// tstune.go. internal/plan
// builds the Input from a snapshot (measured) or from what-if flags;
// internal/advise calls Postgres from Plan and turns the settings into
// advise.Settings that render and apply carry out.
//
// The budget is not the worst case. The worst case (every connection
// running its hungriest query at full work_mem at once) stays beside it:
// nothing in PostgreSQL caps it, and strict overcommit is what turns its
// excess into "out of memory" errors instead of OOM kills.
package budget
