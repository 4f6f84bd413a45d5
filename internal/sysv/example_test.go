package sysv

import (
	"encoding/json"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/dbmem/dbmem/internal/kerneltest"
)

var exampleOut = flag.String("sysv.example", "", "write the facts of an Oracle-like set of real segments as JSON to this file (for docs/sysv.md)")

// TestRealExample builds an Oracle-like picture with real segments and
// writes what the package reports: an "SGA" of three SHM_HUGETLB segments
// owned by nobody (in vm.hugetlb_shm_group, 8 MiB memlock), a 1 GiB segment
// in 4 KiB pages attached by two processes, and an orphan.
func TestRealExample(t *testing.T) {
	if *exampleOut == "" {
		t.Skip("run with -args -sysv.example FILE")
	}
	uid, gid := nobody(t)
	kerneltest.AddHugePages(t, 262)
	kerneltest.Sysctl(t, "vm.hugetlb_shm_group", gid)
	as := []string{"-uid", uid, "-gid", gid, "-groups", gid, "-memlock", mustSize(8 * mib)}
	var ids []int
	for _, size := range []uint64{8 * mib, 512 * mib, 2*mib + 4096} {
		h := startHelper(t, nil, append([]string{"create", "-huge", "-size", mustSize(size)}, as...)...)
		ids = append(ids, h.ID)
	}
	big := startHelper(t, nil, "create", "-size", mustSize(1<<30))
	startHelper(t, nil, "attach", "-id", mustSize(uint64(big.ID)))
	orphan := startHelper(t, nil, "create", "-detach", "-size", mustSize(16*mib))
	orphan.cmd.Wait()
	ids = append(ids, big.ID, orphan.ID)

	s := readLive(t)
	var ours []SegmentInfo
	for _, seg := range s.Segments {
		if slices.Contains(ids, seg.ID) {
			ours = append(ours, seg)
		}
	}
	s.Segments = ours
	facts := map[string]any{
		"Segments":   ours,
		"Kernel":     s.Kernel,
		"Degraded":   s.Degraded,
		"Pool":       HugePagesNeeded(ours, s.Kernel.HugePageSize()),
		"Totals":     CheckTotals(ours, s.Kernel),
		"ShmMax":     CheckShmMax(ours, s.Kernel),
		"Rights":     CheckHugetlbRights(s),
		"Candidates": CheckHugePageCandidates(ours, DefaultCandidateBytes, s.Kernel.HugePageSize()),
		"Orphans":    CheckOrphans(ours, s.Kernel),
	}
	b, err := json.MarshalIndent(facts, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*exampleOut, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
