// Package exporter serves dbmem's database-aware memory metrics to
// Prometheus: what node_exporter cannot know because it does not know which
// processes form a database instance. Per instance and role: private cost,
// page tables (VmPTE), the shared segment and the page size it really uses,
// huge pages needed against the pool, the page-table projection at
// max_connections, the worst case against the limits, the OOM ranking and
// the diagnose engine's findings.
//
// Each scrape reads the cheap numbers (status, stat, oom_score: constant
// time per process) through a sampler.Sampler (internal/snapshot/sampler,
// never the terminal view). Pss (smaps_rollup), which walks every page
// table, is read by a background pass at a slower interval and
// served from its last result, with its age and cost as metrics.
package exporter
