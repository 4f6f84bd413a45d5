package lab

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// Cost compares what N idle connections cost the host (the ground truth)
// with what each way of counting predicts.
type Cost struct {
	Connections  int    `json:"connections"`
	TouchedBytes uint64 `json:"touched_bytes"`
	// TruthBytes is the fall of MemAvailable (with the free pages on the
	// per-CPU lists) while the connections opened, minus the growth of the
	// lab process (the client ends).
	TruthBytes int64 `json:"truth_bytes"`
	// UsedRiseBytes is the rise of used memory over the same time, minus
	// the lab process's growth.
	UsedRiseBytes int64 `json:"used_rise_bytes"`
	// CloseRiseBytes is the MemAvailable regained when they closed: a
	// second reading of the same cost over a much shorter time.
	CloseRiseBytes int64 `json:"close_rise_bytes"`
	// NoiseBytes is how far the host moved on its own: the larger of the
	// MemAvailable spread of the readings at either end and the
	// disagreement of the two readings of the cost (TruthBytes and
	// CloseRiseBytes, which differ only by shared memory first touched).
	NoiseBytes uint64 `json:"noise_bytes"`
	// PredictedBytes is dbmem's cost: the sum of Pss_Anon + VmPTE + VmSwap.
	PredictedBytes uint64 `json:"predicted_bytes"`
	PssBytes       uint64 `json:"pss_bytes"`
	RSSBytes       uint64 `json:"rss_bytes"`
	// Errors relative to TruthBytes, (x - truth) / truth; absent when the
	// truth is not positive.
	PredictedErr *float64 `json:"predicted_err,omitempty"`
	PssErr       *float64 `json:"pss_err,omitempty"`
	RSSErr       *float64 `json:"rss_err,omitempty"`
	UsedErr      *float64 `json:"used_err,omitempty"`
	CloseErr     *float64 `json:"close_err,omitempty"`
	// PageTablesRiseBytes is the rise of meminfo PageTables.
	PageTablesRiseBytes int64 `json:"page_tables_rise_bytes"`
	// PageTablesPerConnGiB is that rise per connection and per GiB read.
	PageTablesPerConnGiB float64 `json:"page_tables_per_conn_gib_bytes"`
	// ReadersPTEBytes sums VmPTE of the readers: their page tables, which
	// other programs on the host cannot move.
	ReadersPTEBytes uint64 `json:"readers_pte_bytes"`
	// ScanPTEBytes sums, over the readers, VmPTE after reading the table
	// minus VmPTE right after connecting: the page tables of the shared
	// buffers alone.
	ScanPTEBytes    uint64  `json:"scan_pte_bytes"`
	ScanPTEPerGiB   float64 `json:"scan_pte_per_gib_bytes"`
	ScanFaultsPerCn float64 `json:"scan_faults_per_conn"`
	// Other host counters over the same time.
	CommittedASRiseBytes int64 `json:"committed_as_rise_bytes"`
	ShmemRiseBytes       int64 `json:"shmem_rise_bytes"`
	KernelRiseBytes      int64 `json:"kernel_rise_bytes"` // KernelStack + SUnreclaim
	// MaxReaderOOMScore is the highest oom_score among the readers.
	MaxReaderOOMScore int `json:"max_reader_oom_score"`
	// NoTruth says why the ground truth was not measured (the host moved
	// memory on its own); empty when it was. The errors against it are
	// then not shown. The page tables (the readers' own VmPTE) do not
	// depend on it.
	NoTruth string `json:"ground_truth_not_measured,omitempty"`
}

// MaxNoise is the share of the cost the host may move on its own while the
// lab measures for the fall of MemAvailable to count as the ground truth.
const MaxNoise = 0.10

// noTruth is NoTruth, judged again for results saved before it existed.
func (c Cost) noTruth() string {
	if c.NoTruth != "" {
		return c.NoTruth
	}
	return judgeTruth(c)
}

// judgeTruth says why the fall of MemAvailable is no ground truth, or ""
// when it is one: it fell, and the host's own movement (the spread of the
// readings, the disagreement of opening and closing) stayed under
// MaxNoise of it.
func judgeTruth(c Cost) string {
	switch {
	case c.TruthBytes <= 0:
		return fmt.Sprintf("MemAvailable rose by %s instead of falling while %d connections opened: other programs freed memory meanwhile",
			SignedBytes(-c.TruthBytes), c.Connections)
	case float64(c.NoiseBytes) > MaxNoise*float64(c.TruthBytes):
		return fmt.Sprintf("the host moved %s on its own while measuring, %.0f%% of the %s measured (at most %.0f%% counts): other programs allocating or freeing",
			units.Bytes(c.NoiseBytes), 100*float64(c.NoiseBytes)/float64(c.TruthBytes), units.Bytes(uint64(c.TruthBytes)), 100*MaxNoise)
	}
	return ""
}

// PerConn divides a total by the number of connections.
func (c Cost) PerConn(total float64) float64 {
	if c.Connections == 0 {
		return 0
	}
	return total / float64(c.Connections)
}

// computeCost compares readings before the connections opened, when all
// were open, and after they closed, with the readers' own numbers.
func computeCost(before, open, closed Reading, readers []Backend, touched uint64) Cost {
	c := Cost{Connections: len(readers), TouchedBytes: touched}
	growth := diff(open.ClientBytes, before.ClientBytes)
	c.TruthBytes = diff(before.available(), open.available()) - growth
	c.UsedRiseBytes = diff(open.UsedBytes, before.UsedBytes) - growth
	c.CloseRiseBytes = diff(closed.available(), open.available()) - diff(open.ClientBytes, closed.ClientBytes)
	c.NoiseBytes = max(before.Settle.SpreadBytes, open.Settle.SpreadBytes, closed.Settle.SpreadBytes,
		uint64(abs(c.TruthBytes-c.CloseRiseBytes)))
	for _, r := range readers {
		c.PredictedBytes += r.PrivateBytes()
		c.PssBytes += r.PssBytes
		c.RSSBytes += r.RSSBytes
		c.ScanPTEBytes += r.ScanPTEBytes
		c.ReadersPTEBytes += r.VmPTEBytes
		c.ScanFaultsPerCn += float64(r.ScanMinFlt)
		c.MaxReaderOOMScore = max(c.MaxReaderOOMScore, r.OOMScore)
	}
	c.ScanFaultsPerCn = c.PerConn(c.ScanFaultsPerCn)
	c.PredictedErr = relErr(float64(c.PredictedBytes), c.TruthBytes)
	c.PssErr = relErr(float64(c.PssBytes), c.TruthBytes)
	c.RSSErr = relErr(float64(c.RSSBytes), c.TruthBytes)
	c.UsedErr = relErr(float64(c.UsedRiseBytes), c.TruthBytes)
	c.CloseErr = relErr(float64(c.CloseRiseBytes), c.TruthBytes)
	c.PageTablesRiseBytes = diff(open.PageTablesBytes, before.PageTablesBytes)
	if gib := float64(touched) / float64(units.GiB); gib > 0 && c.Connections > 0 {
		c.PageTablesPerConnGiB = c.PerConn(float64(c.PageTablesRiseBytes)) / gib
		c.ScanPTEPerGiB = c.PerConn(float64(c.ScanPTEBytes)) / gib
	}
	c.CommittedASRiseBytes = diff(open.CommittedASBytes, before.CommittedASBytes)
	c.ShmemRiseBytes = diff(open.ShmemBytes, before.ShmemBytes)
	c.KernelRiseBytes = diff(open.KernelStackBytes+open.SUnreclaimBytes, before.KernelStackBytes+before.SUnreclaimBytes)
	c.NoTruth = judgeTruth(c)
	return c
}

// available is MemAvailable with the free pages on the per-CPU lists.
func (r Reading) available() uint64 { return r.MemAvailableBytes + r.PCPFreeBytes }

// PrivateBytes is dbmem's private cost of the process: Pss_Anon + VmPTE +
// VmSwap (RssAnon instead of Pss_Anon when smaps_rollup was not read).
func (b Backend) PrivateBytes() uint64 {
	anon := b.RssAnonBytes
	if b.HasPss {
		anon = b.PssAnonBytes
	}
	return anon + b.VmPTEBytes + b.VmSwapBytes
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// diff is a - b as a signed number.
func diff(a, b uint64) int64 { return int64(a) - int64(b) }

// relErr is (x - truth) / truth, nil when truth is not positive.
func relErr(x float64, truth int64) *float64 {
	if truth <= 0 {
		return nil
	}
	e := (x - float64(truth)) / float64(truth)
	return &e
}
