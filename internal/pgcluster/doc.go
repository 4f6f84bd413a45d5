// Package pgcluster creates, starts and removes throwaway PostgreSQL clusters
// (initdb in a private directory, a free port, a unix socket in that
// directory) and drives simple workloads against them.
//
// It is used by `dbmem lab` and by the integration tests. When run as root it
// runs the PostgreSQL binaries as the "postgres" OS user, because initdb and
// postgres refuse to run as root. It only ever signals the postmaster it
// started itself, by PID, once the kernel says that pid runs its postgres
// as the cluster's owner in its data directory (hostchange.Cluster.Runs);
// Options.Journal lets a caller journal the directory and the postmaster. Tests ask for initdb to run in a cgroup that may
// reserve no huge page (Options.InitdbWithoutHugePages): PostgreSQL's
// default huge_pages=try would take free pages another test grew the pool
// for. Exec returns once its connection's backend has exited.
package pgcluster
