package advise

import "github.com/dbmem/dbmem/internal/finding"

// Severity thresholds. Each is stated in docs/check-plan.md; change both
// together. Shares are of MemTotal.
const (
	// Page tables, current (meminfo PageTables) or projected at
	// max_connections: notice from 1% of RAM (and at least
	// PageTablesFloor), warning from 3%, critical from 10%. A test
	// cluster's few MiB stay silent; 25 GB on a 192 GB host is critical.
	PageTablesNotice   = 0.01
	PageTablesWarning  = 0.03
	PageTablesCritical = 0.10
	PageTablesFloor    = 256 * MiB

	// Shared segment in 4 KiB pages: silent (info) below this size unless
	// the page table projection says otherwise.
	HugePagesWorthBytes = GiB

	// Huge page pool reserved but unused: notice from PoolWasteFloor,
	// warning from PoolWasteWarning of RAM. A pool in use is oversized when
	// more than PoolSlack of it (and PoolWasteFloor) is free and unreserved.
	PoolWasteFloor   = 256 * MiB
	PoolWasteWarning = 0.05
	PoolSlack        = 0.10

	// Memory pressure now: MemAvailable under PressureAvailable of RAM,
	// or at least PressureSwapBytes in swap (hugepages.pool_starves_host
	// is critical with it).
	PressureAvailable = 0.10
	PressureSwapBytes = 256 * MiB

	// Strict overcommit: Committed_AS at CommitNearWarning of CommitLimit is
	// a warning, at CommitNearCritical critical.
	CommitNearWarning  = 0.90
	CommitNearCritical = 0.98

	// Swap: more than SwapLargeBytes and SwapLargeShare of RAM is large for
	// a database host (seed 001: 1-2 GB is enough); swappiness above
	// SwappinessMax with swap present is a notice.
	SwapLargeBytes = 2 * GiB
	SwapLargeShare = 0.05
	SwappinessMax  = 10
	// Swap in use: at least SwapInUseBytes swapped out while MemAvailable
	// is at least SwapInUseAvailable of RAM is a warning (memory was
	// there: swappiness, not pressure, sent it out).
	SwapInUseBytes     = GiB
	SwapInUseAvailable = 0.20

	// shared_buffers above CacheNotice of RAM is a notice, above
	// CacheWarning a warning (the usual rule is about 25%).
	CacheNotice  = 0.40
	CacheWarning = 0.50

	// OOM: a database process first in the ranking because of shared
	// memory counted in its RSS is a warning when its RssShmem is at least
	// OOMShmemFloor and half its badness.
	OOMShmemFloor = GiB
	// OOMShown is how many processes the ranking lists.
	OOMShown = 5
)

// pageTableSeverity grades page tables of b bytes on a host with ram bytes;
// ok is false when they are too small to mention.
func pageTableSeverity(b, ram uint64) (finding.Severity, bool) {
	s := share(b, ram)
	switch {
	case ram == 0:
		return finding.Info, false
	case s >= PageTablesCritical:
		return finding.Critical, true
	case s >= PageTablesWarning:
		return finding.Warning, true
	case s >= PageTablesNotice && b >= PageTablesFloor:
		return finding.Notice, true
	}
	return finding.Info, false
}
