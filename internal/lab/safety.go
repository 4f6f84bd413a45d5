package lab

import (
	"fmt"
	"os"
	"syscall"

	"github.com/dbmem/dbmem/internal/units"
)

// Need is the memory the experiment takes at its peak, estimated before it
// starts.
type Need struct {
	SegmentBytes     uint64 `json:"segment_bytes"`
	PerConnBytes     uint64 `json:"per_conn_bytes"`
	ConnectionsBytes uint64 `json:"connections_bytes"`
	MarginBytes      uint64 `json:"margin_bytes"`
	TotalBytes       uint64 `json:"total_bytes"`
}

// perConnSlack is a connection's cost beyond the page tables of the table:
// Pss_Anon, base page tables and kernel structures, rounded up.
const perConnSlack = 4 << 20

// estimateNeed sizes the peak: the shared memory segment (4 KiB shared
// memory with huge_pages=off, the pool with on: never both, the server
// restarts between) plus every connection, with page tables of the whole
// table per connection when huge_pages=off. The margin is the larger of
// 1 GiB and 10% of RAM, left for everyone else.
func estimateNeed(c Config, segment uint64, m Mem) Need {
	n := Need{SegmentBytes: segment, PerConnBytes: perConnSlack}
	if c.Has(ModeOff) {
		n.PerConnBytes += c.TableBytes() / 512
	}
	n.ConnectionsBytes = uint64(c.Connections+c.BenchClients) * n.PerConnBytes
	n.MarginBytes = max(units.GiB, m.MemTotalBytes/10)
	n.TotalBytes = n.SegmentBytes + n.ConnectionsBytes + n.MarginBytes
	return n
}

// checkFits refuses an experiment that would not fit in MemAvailable.
func checkFits(c Config, segment uint64, m Mem) error {
	n := estimateNeed(c, segment, m)
	if n.TotalBytes <= m.MemAvailableBytes {
		return nil
	}
	return fmt.Errorf("the experiment would not fit in memory: it needs about %s (shared memory %s + %d connections x %s) plus a margin of %s, "+
		"and MemAvailable is %s; lower --shared-buffers or --connections",
		units.Bytes(n.SegmentBytes+n.ConnectionsBytes), units.Bytes(n.SegmentBytes), c.Connections+c.BenchClients,
		units.Bytes(n.PerConnBytes), units.Bytes(n.MarginBytes), units.Bytes(m.MemAvailableBytes))
}

// checkDisk refuses a base directory without room for the table, its index
// and some WAL.
func checkDisk(dir string, c Config) error {
	if dir == "" {
		dir = os.TempDir()
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return fmt.Errorf("statfs %s: %w", dir, err)
	}
	free := st.Bavail * uint64(st.Bsize)
	need := c.TableBytes() + c.TableBytes()/10 + 512<<20
	if free < need {
		return fmt.Errorf("%s has %s free; the lab's cluster needs about %s: choose another directory with --dir", dir, units.Bytes(free), units.Bytes(need))
	}
	if st.Type == 0x01021994 { // TMPFS_MAGIC
		return fmt.Errorf("%s is a tmpfs: the table would sit in RAM as shared memory and distort every reading; choose a disk directory with --dir", dir)
	}
	return nil
}
