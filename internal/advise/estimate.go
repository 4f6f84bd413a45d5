package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// PGSizing is what sizes PostgreSQL's main shared memory segment.
type PGSizing struct {
	SharedBuffersBytes uint64
	// WalBuffersBytes is wal_buffers; 0 means -1 (automatic: shared_buffers
	// / 32 between 64 kB and 16 MB).
	WalBuffersBytes        uint64
	MaxConnections         int
	AutovacuumWorkers      int
	MaxWorkerProcesses     int
	MaxWalSenders          int
	MaxPreparedXacts       int
	MaxLocksPerXact        int
	MaxPredLocksPerXact    int
	MinDynamicSharedMemory uint64
}

// PostgresSizing reads the sizing settings, PostgreSQL's defaults where a
// setting is absent.
func PostgresSizing(s postgres.Settings) PGSizing {
	return PGSizing{
		SharedBuffersBytes: bytesSetting(s, "shared_buffers", 128*MiB), MaxConnections: intSetting(s, "max_connections", 100),
		AutovacuumWorkers: intSetting(s, "autovacuum_max_workers", 3), MaxWorkerProcesses: intSetting(s, "max_worker_processes", 8),
		MaxWalSenders: intSetting(s, "max_wal_senders", 10), MaxPreparedXacts: intSetting(s, "max_prepared_transactions", 0),
		MaxLocksPerXact: intSetting(s, "max_locks_per_transaction", 64), MaxPredLocksPerXact: intSetting(s, "max_pred_locks_per_transaction", 64),
		WalBuffersBytes: bytesSetting(s, "wal_buffers", 0), MinDynamicSharedMemory: bytesSetting(s, "min_dynamic_shared_memory", 0),
	}
}

// Coefficients fitted on `postgres -C shared_memory_size` of PostgreSQL 15
// across shared_buffers 128 MB-64 GB, max_connections 10-5000,
// max_locks_per_transaction 64-4096 and wal_buffers up to 256 MB.
const (
	estBufferFactor   = 1.0222 // buffer pool + descriptors, I/O condition variables, checkpoint sort array
	estFixedBytes     = 5 * MiB / 2
	estPerBackend     = 10 * KiB // PGPROC, ...
	estPerLockSlot    = 388      // lock table entry (max_locks_per_transaction)
	estPerPredLockBuf = 242      // predicate lock table entry
)

// EstimatePostgresShared estimates the main segment's size from settings,
// for when no PostgreSQL binary can be asked (`postgres -C`). It is within a
// few percent of the real size for core PostgreSQL; preloaded libraries add
// their own.
func EstimatePostgresShared(s PGSizing) (uint64, string) {
	wal := s.WalBuffersBytes
	if wal == 0 {
		wal = min(max(s.SharedBuffersBytes/32, 64*KiB), 16*MiB)
	}
	backends := s.MaxConnections + s.AutovacuumWorkers + 1 + s.MaxWorkerProcesses + s.MaxWalSenders
	slots := uint64(backends + s.MaxPreparedXacts)
	per := estPerBackend + uint64(s.MaxLocksPerXact)*estPerLockSlot + uint64(s.MaxPredLocksPerXact)*estPerPredLockBuf
	b := uint64(float64(s.SharedBuffersBytes)*estBufferFactor) + wal + estFixedBytes + slots*per + s.MinDynamicSharedMemory
	f := fmt.Sprintf("estimate: %.4f x %s shared_buffers + %s wal_buffers + %s + %d backend slots x (10 KiB + %d locks x 388 B + %d predicate locks x 242 B)",
		estBufferFactor, units.Bytes(s.SharedBuffersBytes), units.Bytes(wal), units.Bytes(estFixedBytes), slots, s.MaxLocksPerXact, s.MaxPredLocksPerXact)
	if s.MinDynamicSharedMemory > 0 {
		f += " + " + units.Bytes(s.MinDynamicSharedMemory) + " min_dynamic_shared_memory"
	}
	return b, f + " = " + units.Bytes(b)
}
