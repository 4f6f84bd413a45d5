package pagecost

import (
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestFastTakesSmapsWhereCheaper runs two sharer families: one that maps
// 4 MiB of shared memory (smaps_rollup is cheaper: MethodFast reads it,
// with all its fields, and says so in Method) and one that maps 64 MiB
// (the pagemap path). Both give smaps_rollup's Pss_Anon.
func TestFastTakesSmapsWhereCheaper(t *testing.T) {
	requireRoot(t)
	bin := buildSharer(t, t.TempDir())
	for _, tc := range []struct {
		sharedMB int
		want     Method
	}{{4, MethodSmaps}, {64, MethodFast}} {
		fam := startSharer(t, bin, tc.sharedMB, 4, 2, 2, 0)
		costs, skipped, err := Measure(linux.DefaultFS(), fam.PIDs(), Options{Method: MethodFast})
		if err != nil || len(skipped) > 0 || len(costs) != len(fam.PIDs()) {
			t.Fatalf("%d MiB shared: %d costs, skipped %v, err %v", tc.sharedMB, len(costs), skipped, err)
		}
		smaps := byPID(measureOK(t, fam.PIDs(), MethodSmaps))
		for _, c := range costs {
			if c.Method != tc.want || c.Fallback != nil || (c.Rollup != nil) != (tc.want == MethodSmaps) {
				t.Errorf("%d MiB shared, PID %d: method %v, rollup %v, fallback %v; want %v", tc.sharedMB, c.PID, c.Method, c.Rollup != nil, c.Fallback, tc.want)
			}
			if c.PssAnonBytes>>10 != smaps[c.PID].PssAnonBytes>>10 {
				t.Errorf("%d MiB shared, PID %d: Pss_Anon %d kB, smaps_rollup %d kB", tc.sharedMB, c.PID, c.PssAnonBytes>>10, smaps[c.PID].PssAnonBytes>>10)
			}
		}
	}
}
