package linux

import (
	"strings"
	"testing"
)

// TestHugetlbBy64KPages: on arm64 with 64 KiB base pages every mapping has
// KernelPageSize 64 kB; only the "ht" flag makes a huge page mapping
// (testdata/archetypes/arm64-64k-pg16). Without VmFlags (before 3.8) the
// page size decides.
func TestHugetlbBy64KPages(t *testing.T) {
	smaps := "7f0000000000-7f0214000000 rw-s 00000000 00:01 4596 /dev/zero (deleted)\n" +
		"Size:            8716288 kB\nKernelPageSize:       64 kB\nMMUPageSize:          64 kB\nRss:              174325 kB\n" +
		"VmFlags: rd wr sh mr mw me ms sd \n" +
		"7e0000000000-7e0020000000 rw-s 00000000 00:0f 1 /anon_hugepage (deleted)\n" +
		"Size:             524288 kB\nKernelPageSize:   524288 kB\nMMUPageSize:      524288 kB\nRss:                   0 kB\n" +
		"VmFlags: rd wr sh mr mw me ms de ht sd \n" +
		"7d0000000000-7d0000200000 rw-s 00000000 00:0f 2 /anon_hugepage (deleted)\n" +
		"Size:               2048 kB\nKernelPageSize:     2048 kB\nMMUPageSize:        2048 kB\nRss:                   0 kB\n"
	es, err := parseSmaps(strings.NewReader(smaps), nil)
	if err != nil || len(es) != 3 {
		t.Fatalf("%d entries, %v", len(es), err)
	}
	if es[0].Hugetlb() || !es[1].Hugetlb() || !es[2].Hugetlb() {
		t.Errorf("hugetlb: 64 KiB base pages %v, 512 MiB ht %v, 2 MiB without VmFlags %v", es[0].Hugetlb(), es[1].Hugetlb(), es[2].Hugetlb())
	}
}
