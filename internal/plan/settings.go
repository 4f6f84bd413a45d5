package plan

import (
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// sizingNames are the settings that size the main shared memory segment,
// passed to `postgres -C` for a planned configuration: an instance's
// configuration reaches PostgreSQL only through them, as data (never
// shared_preload_libraries or another setting that loads code). A setting
// a version lacks is never in its settings, so never passed to it.
var sizingNames = []string{
	"shared_buffers", "max_connections", "autovacuum_max_workers", "max_worker_processes",
	"max_wal_senders", "max_prepared_transactions", "max_locks_per_transaction",
	"max_pred_locks_per_transaction", "wal_buffers", "max_replication_slots",
	"min_dynamic_shared_memory", "track_activity_query_size", "max_logical_replication_workers",
	"autovacuum_worker_slots", "commit_timestamp_buffers", "multixact_member_buffers",
	"multixact_offset_buffers", "notify_buffers", "serializable_buffers", "subtransaction_buffers",
	"transaction_buffers",
}

// workloadNames are the settings the worst case reads.
var workloadNames = []string{
	"max_connections", "work_mem", "hash_mem_multiplier", "max_parallel_workers",
	"autovacuum_max_workers", "maintenance_work_mem", "autovacuum_work_mem", "temp_buffers", "jit",
	"shared_buffers", "huge_pages", "huge_page_size", "shared_memory_type",
}

// overlay returns base with values set over it, memory settings converted
// to bytes.
func overlay(base postgres.Settings, values map[string]string, src postgres.Source) postgres.Settings {
	out := postgres.Settings{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range values {
		st := postgres.Setting{Value: v, Source: src}
		if unit, ok := postgres.BaseUnit(k); ok {
			if b, err := units.ParsePG(v, unit); err == nil {
				st.Bytes = &b
			}
		}
		out[k] = st
	}
	return out
}
