// Package watch samples a host's database memory over and over, cheaply:
// every tick it reads /proc/meminfo, /proc/vmstat and each process's status,
// stat, cmdline and oom_score (constant time per process); the expensive
// smaps_rollup walk (Pss, exact private cost) runs only at a slower interval.
//
// A Sampler (internal/snapshot/sampler, aliased here) reads; a Watcher
// turns successive samples into Frames (the numbers a view shows, with
// rates and ages: host, PostgreSQL instances, MySQL/MariaDB servers, top
// processes, findings); Render lays a Frame out as text; Run drives the
// loop for `dbmem watch`. The Prometheus exporter samples through the same
// Sampler without importing this package.
package watch
