package pagecost

import (
	"os"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

const mib = 1 << 20

// measureBoth measures pids with the fast path and then smaps_rollup,
// returning both by PID and the CPU time of each (best of runs).
func measureBoth(t testing.TB, pids []int, runs int) (fast, smaps map[int]Cost, fastCPU, smapsCPU time.Duration) {
	t.Helper()
	fastCPU, smapsCPU = time.Hour, time.Hour
	for i := 0; i < runs; i++ {
		var fc, sc []Cost
		_, fcpu := costOf(func() { fc = measureOK(t, pids, MethodFast) })
		_, scpu := costOf(func() { sc = measureOK(t, pids, MethodSmaps) })
		fastCPU, smapsCPU = min(fastCPU, fcpu), min(smapsCPU, scpu)
		fast, smaps = byPID(fc), byPID(sc)
	}
	return fast, smaps, fastCPU, smapsCPU
}

// measureOK measures pids with m; MethodFast always reads pagemap here,
// so that its numbers are checked against smaps_rollup's.
func measureOK(t testing.TB, pids []int, m Method) []Cost {
	t.Helper()
	costs, skipped, err := Measure(linux.DefaultFS(), pids, Options{Method: m, AlwaysPagemap: true})
	if err != nil || len(skipped) > 0 || len(costs) != len(pids) {
		t.Fatalf("Measure %v: %d costs for %d PIDs, skipped %v, err %v", m, len(costs), len(pids), skipped, err)
	}
	return costs
}

func byPID(cs []Cost) map[int]Cost {
	m := make(map[int]Cost, len(cs))
	for _, c := range cs {
		m[c.PID] = c
	}
	return m
}

func requireRoot(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the exact fast path needs root (TestFallbackNotRoot covers the fallback)")
	}
}

// TestFastMatchesSmapsRollup runs a real process family that shares 1 GiB
// of MAP_SHARED memory, 16 MiB of copy-on-write memory (half of it written
// by each child) and 8 MiB of THP, and checks that the fast path gives
// exactly smaps_rollup's Pss_Anon for each process, without reading the
// shared segment, at a fraction of the cost.
func TestFastMatchesSmapsRollup(t *testing.T) {
	requireRoot(t)
	const sharedMB, cowMB, privMB, children, thpMB = 1024, 16, 8, 4, 8
	fam := startSharer(t, buildSharer(t, t.TempDir()), sharedMB, cowMB, privMB, children, thpMB)
	fast, smaps, fastCPU, smapsCPU := measureBoth(t, fam.PIDs(), 3)
	for _, pid := range fam.PIDs() {
		f, s := fast[pid], smaps[pid]
		t.Logf("PID %d: fast Pss_Anon %d kB (%d exclusive pages, %d looked up, %d pagemap entries), smaps_rollup %d kB, AnonHugePages %d kB",
			pid, f.PssAnonBytes>>10, f.Scan.ExclusivePages, f.Scan.LookedUpPages, f.Scan.PagemapEntries, s.PssAnonBytes>>10, *s.Rollup.AnonHugePagesBytes>>10)
		if f.Method != MethodFast || f.Fallback != nil {
			t.Errorf("PID %d: method %v, fallback %v; want the fast path as root", pid, f.Method, f.Fallback)
		}
		if f.PssAnonBytes>>10 != s.PssAnonBytes>>10 {
			t.Errorf("PID %d: fast Pss_Anon %d kB, smaps_rollup %d kB: want equal", pid, f.PssAnonBytes>>10, s.PssAnonBytes>>10)
		}
		if f.Scan.SkippedSharedBytes < sharedMB*mib {
			t.Errorf("PID %d: skipped %d bytes of shared mappings, want at least the %d MiB segment", pid, f.Scan.SkippedSharedBytes, sharedMB)
		}
		if f.Scan.PagemapEntries > sharedMB*mib/4096/4 {
			t.Errorf("PID %d: read %d pagemap entries; the shared segment alone has %d", pid, f.Scan.PagemapEntries, sharedMB*mib/4096)
		}
		if v, ok := f.PrivateBytes(); *f.VmPTEBytes == 0 || !ok || v != f.PssAnonBytes+*f.VmPTEBytes+*f.VmSwapBytes {
			t.Errorf("PID %d: VmPTE %d, PrivateBytes %d", pid, *f.VmPTEBytes, v)
		}
	}
	checkChildShare(t, fast[fam.Children[0]], cowMB, privMB, thpMB, children)
	t.Logf("%d processes: CPU time fast %v, smaps_rollup %v (%.1f%%)", len(fam.PIDs()), fastCPU, smapsCPU, 100*fastCPU.Seconds()/smapsCPU.Seconds())
	if fastCPU*3 > smapsCPU {
		t.Errorf("fast path took %v of CPU, smaps_rollup %v: want at least 3 times cheaper", fastCPU, smapsCPU)
	}
}

// checkChildShare checks a child's Pss_Anon against what the sharer did:
// its own private memory and written half of the COW region in full, the
// unwritten half and the THP region divided among parent and children,
// plus at most 3 MiB of libc, stack and the pages written in the THP region.
func checkChildShare(t *testing.T, c Cost, cowMB, privMB, thpMB, children uint64) {
	t.Helper()
	want := (privMB+cowMB/2)*mib + (cowMB/2+thpMB)*mib/(children+1)
	if c.PssAnonBytes < want || c.PssAnonBytes > want+3*mib {
		t.Errorf("child %d: Pss_Anon %d kB, want %d kB + at most 3 MiB", c.PID, c.PssAnonBytes>>10, want>>10)
	}
}
