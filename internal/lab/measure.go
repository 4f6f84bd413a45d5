package lab

import (
	"cmp"
	"context"
	"os"
	"runtime/debug"
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// SettleOptions say how to wait for meminfo to settle before a reading: the
// balloon driver, the page cache and other programs move MemAvailable.
type SettleOptions struct {
	// Interval between reads of /proc/meminfo (default 250 ms).
	Interval time.Duration
	// Window is how long MemAvailable must stay within Threshold
	// (default 2 s).
	Window time.Duration
	// Threshold is the largest max - min over the window (default 1 MiB).
	Threshold uint64
	// Max bounds the wait (default 15 s); the reading is then marked not
	// settled and carries its spread.
	Max time.Duration
}

func (s SettleOptions) withDefaults() SettleOptions {
	if s.Interval <= 0 {
		s.Interval = 250 * time.Millisecond
	}
	if s.Window <= 0 {
		s.Window = 2 * time.Second
	}
	s.Threshold = cmp.Or(s.Threshold, 1<<20)
	if s.Max <= 0 {
		s.Max = 15 * time.Second
	}
	return s
}

// hostMem is one read of meminfo with the free pages on the per-CPU lists.
type hostMem struct {
	Mem
	PCPBytes uint64
}

// free is MemAvailable with the per-CPU free pages: what the ground truth
// is taken from.
func (h hostMem) free() uint64 { return h.MemAvailableBytes + h.PCPBytes }

func readHostMem(fs linux.FS) (hostMem, error) {
	m, err := readMem(fs)
	if err != nil {
		return hostMem{}, err
	}
	pcp, err := readPCPBytes(fs)
	return hostMem{Mem: m, PCPBytes: pcp}, err
}

// settle reads meminfo until MemAvailable (with the per-CPU free pages)
// stayed within the threshold over the window, or Max passed. It returns
// the read whose value is the median of the last window.
func settle(ctx context.Context, fs linux.FS, o SettleOptions) (hostMem, Settle, error) {
	o = o.withDefaults()
	n := int(o.Window/o.Interval) + 1
	start := time.Now()
	var win []hostMem
	for {
		m, err := readHostMem(fs)
		if err != nil {
			return m, Settle{}, err
		}
		if win = append(win, m); len(win) > n {
			win = win[1:]
		}
		spread := spreadOf(win)
		done := len(win) == n && spread <= o.Threshold
		if done || time.Since(start) >= o.Max {
			return median(win), Settle{Waited: time.Since(start), Settled: done, SpreadBytes: spread}, nil
		}
		select {
		case <-ctx.Done():
			return m, Settle{}, ctx.Err()
		case <-time.After(o.Interval):
		}
	}
}

func spreadOf(win []hostMem) uint64 {
	lo, hi := win[0].free(), win[0].free()
	for _, m := range win {
		lo, hi = min(lo, m.free()), max(hi, m.free())
	}
	return hi - lo
}

func median(win []hostMem) hostMem {
	s := append([]hostMem(nil), win...)
	sort.Slice(s, func(i, j int) bool { return s[i].free() < s[j].free() })
	return s[len(s)/2]
}

// usedBytes is used memory as free(1) computes it, less the free pages on
// the per-CPU lists.
func usedBytes(m hostMem) uint64 {
	notUsed := m.MemFreeBytes + m.BuffersBytes + m.CachedBytes + m.SReclaimableBytes + m.PCPBytes
	if notUsed > m.MemTotalBytes {
		return 0
	}
	return m.MemTotalBytes - notUsed
}

// readingOf turns meminfo into a Reading.
func readingOf(stage string, conns int, m hostMem) Reading {
	r := Reading{
		Stage: stage, At: time.Now().UTC(), Connections: conns,
		MemAvailableBytes: m.MemAvailableBytes, PCPFreeBytes: m.PCPBytes, UsedBytes: usedBytes(m),
		PageTablesBytes: m.PageTablesBytes, CommittedASBytes: m.CommittedASBytes,
		ShmemBytes: m.ShmemBytes, KernelStackBytes: m.KernelStackBytes,
		HugePagesTotal: m.HugePagesTotal, HugePagesFree: m.HugePagesFree,
		HugePagesRsvd: m.HugePagesRsvd, HugePagesSurp: m.HugePagesSurp,
	}
	if m.SlabBytes > m.SReclaimableBytes {
		r.SUnreclaimBytes = m.SlabBytes - m.SReclaimableBytes
	}
	return r
}

// read takes a settled reading of the host. The lab returns its own freed
// heap to the kernel first, so that its growth is only the client ends of
// open connections.
func (r *run) read(ctx context.Context, stage string, conns int, so SettleOptions) (Reading, error) {
	debug.FreeOSMemory()
	m, s, err := settle(ctx, r.fs, so)
	if err != nil {
		return Reading{}, err
	}
	rd := readingOf(stage, conns, m)
	rd.Settle = s
	debug.FreeOSMemory()
	if st, err := readStatusMem(r.fs, os.Getpid()); err == nil {
		rd.ClientBytes = st.RssAnon + st.VmPTE
	}
	return rd, nil
}
