// Package plan gathers what `dbmem plan` computes from: the host's sizes and
// current settings (from a snapshot, or what-if flags for a host that is not
// this one) and each PostgreSQL instance's planned configuration with the
// huge pages it needs. The need comes from PostgreSQL itself wherever
// possible:
//
//   - a running server, unchanged: SHOW shared_memory_size_in_huge_pages
//     (15+), else the size of the postmaster's main shared mapping;
//   - a stopped server (--data-dir): `postgres -D DIR -C
//     shared_memory_size_in_huge_pages` with the planned settings as -c
//     options, run as the data directory's owner (15+);
//   - a planned configuration (what-if, or a running server with changes):
//     the same question asked of a throwaway cluster (initdb) of the same
//     major version;
//   - no PostgreSQL 15+ binary: advise.EstimatePostgresShared, with a
//     larger margin.
//
// MySQL/MariaDB servers of the snapshot (or one described with
// --mysql-version on a what-if host) join the plan through
// advise.PlanMySQL: their large-page buffers, from the settings or the
// mappings they hold, with their own margin.
//
// The calculation itself is advise.Plan (pure); this package only reads
// and asks. It also lists the host's processes for the OOM ranking of
// `dbmem check` (HostProcesses).
package plan
