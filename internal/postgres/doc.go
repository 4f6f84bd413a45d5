// Package postgres finds and reads the PostgreSQL servers running on a
// host, without trusting what they say about themselves.
//
// Discover lists every postmaster (a postgres process whose parent is not
// one) from /proc, with its children, and for each Instance reads:
//
//   - its data directory (-D, else the postmaster's working directory),
//     postmaster.pid and PG_VERSION, and its configuration files
//     (postgresql.conf with its includes, postgresql.auto.conf, the command
//     line's -c) with the rights of the account that runs it, through no
//     link it made (linux.FS.As);
//   - over SQL, when a LiveSource is given (Connector): the version, every
//     setting, pg_stat_activity and, for the budget, spills and roles'
//     settings. Connector connects only to a server proven to be the
//     postmaster found in /proc (servertrust), directly or, as root,
//     through dbmem's helper running as the server's account (peer
//     authentication: helper.go, internal/asowner), and never sends a
//     password to an unproven server (docs/connections.md);
//   - every process's memory (linux.ReadProcess) and role (from
//     pg_stat_activity, else its title), its private cost through
//     internal/pagecost, the main shared memory segment and its page size,
//     and the postmaster's cgroup.
//
// What cannot be read is a Gap naming the input and why, never a default
// passed off as the server's value. Settings (settings.go, units.go) keep
// where each value came from (default, file, command line, server).
package postgres
