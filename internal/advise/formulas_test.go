package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/units"
)

const kB = KiB

func TestOvercommitRatio(t *testing.T) {
	for _, c := range []struct {
		name            string
		ram, swap, huge uint64
		reserve         float64
		want            int
		ok              bool
	}{
		// Seed 001: MemTotal 5016896 kB, SwapTotal 974844 kB, 547 huge pages
		// of 2 MiB; the article computes "vm.overcommit_ratio = 50" and 60
		// without huge pages. Rounded down so the reserve holds: 49.2 is
		// 49, 60.6 is 60 (61 would leave 19.6% of RAM).
		{"seed 001 with huge pages", 5016896 * kB, 974844 * kB, 547 * 2 * MiB, 0.20, 49, true},
		{"seed 001 without huge pages", 5016896 * kB, 974844 * kB, 0, 0.20, 60, true},
		{"5 GiB, 1 GiB swap, 1.1 GiB pool", 5 * GiB, GiB, 1126 * MiB, 0.20, 48, true},
		{"5 GiB, 1 GiB swap, no pool", 5 * GiB, GiB, 0, 0.20, 60, true},
		{"64 GiB, 2 GiB swap, 16 GiB pool", 64 * GiB, 2 * GiB, 16*GiB + 360*MiB, 0.20, 68, true},
		{"192 GiB, no swap, 48 GiB pool", 192 * GiB, 0, 48 * GiB, 0.20, 73, true},
		{"1 TiB, 2 GiB swap, no pool: tends to 80", 1024 * GiB, 2 * GiB, 0, 0.20, 79, true},
		{"reserve 10%", 64 * GiB, 0, 0, 0.10, 90, true},
		{"swap larger than the reserve leaves", 4 * GiB, 4 * GiB, 0, 0.20, 0, false},
		{"pool as large as RAM", 4 * GiB, 0, 4 * GiB, 0.20, 0, false},
		{"no RAM", 0, 0, 0, 0.20, 0, false},
	} {
		got, f, ok := OvercommitRatio(c.ram, c.swap, c.huge, c.reserve)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: ratio %d ok %v, want %d %v (%s)", c.name, got, ok, c.want, c.ok, f)
		}
		if ok && !strings.Contains(f, "x 100 =") {
			t.Errorf("%s: formula %q does not show the arithmetic", c.name, f)
		}
	}
}

func TestCommitLimitKeepsReserve(t *testing.T) {
	// With the planned ratio, CommitLimit + pool + reserve x RAM = RAM (to
	// the rounding of the ratio).
	for _, ram := range []uint64{4 * GiB, 24 * GiB, 192 * GiB, 1024 * GiB} {
		for _, huge := range []uint64{0, ram / 4} {
			swap := 2 * GiB
			r, _, ok := OvercommitRatio(ram, swap, huge, 0.2)
			if !ok {
				t.Fatalf("ram %s: no ratio", units.Bytes(ram))
			}
			left := float64(ram) - float64(CommitLimit(ram, swap, huge, r)) - float64(huge)
			if got := left / float64(ram); got < 0.20 || got > 0.21 {
				t.Errorf("ram %s pool %s: leaves %.4f of RAM, want at least 0.20 (rounded down)", units.Bytes(ram), units.Bytes(huge), got)
			}
		}
	}
	if got := CommitLimit(5016896*kB, 974844*kB, 547*2*MiB, 50); got != 2923164*kB {
		// seed 001: "CommitLimit descendra alors à 2920092 kB" (its pool was 547 pages)
		t.Errorf("seed 001 CommitLimit %d kB, want 2923164 kB", got/kB)
	}
}

// TestCommitLimitAsTheKernel: the Oracle host of issue 13 (MemTotal
// 132382720 kB, 53342 pages of 2 MiB held by the SGA, no swap): at ratio 80
// the kernel gives (MemTotal - pool) x 80% = 17.7 GiB, not 101 GiB.
func TestCommitLimitAsTheKernel(t *testing.T) {
	ram, pool := uint64(132382720*kB), uint64(53342*2*MiB)
	if got := CommitLimit(ram, 0, pool, 80); got != 18510640*kB {
		t.Errorf("Oracle host at ratio 80: CommitLimit %d kB (%s), want 18510640 kB", got/kB, units.Bytes(got))
	}
	if got := CommitLimit(ram, 0, 0, 80); got < 100*GiB {
		t.Errorf("without the pool: %s", units.Bytes(got))
	}
	if _, _, ok := OvercommitRatio(ram, 0, pool, 0.20); ok {
		t.Error("a ratio for a host whose pools take 82% of RAM: no ratio keeps 20% for the page cache")
	}
	// pg12-strict-near-limit: 16380384 kB, 4029436 kB swap, 17708860 kB committed.
	r, ok := RatioHolding(16380384*kB, 4029436*kB, 0, 17708860*kB)
	if !ok || r != 84 || CommitLimit(16380384*kB, 4029436*kB, 0, r) < 17708860*kB || CommitLimit(16380384*kB, 4029436*kB, 0, r-1) >= 17708860*kB {
		t.Errorf("smallest ratio holding 17708860 kB: %d %v", r, ok)
	}
	if _, ok := RatioHolding(4*GiB, 0, 0, 5*GiB); ok {
		t.Error("a ratio holds 5 GiB committed on 4 GiB without swap")
	}
}

// TestPoolPages: the margin is bytes, the sum rounded up to pages.
func TestPoolPages(t *testing.T) {
	for _, c := range []struct {
		name    string
		n       HugePageNeed
		size    uint64
		percent float64
		want    uint64
	}{
		{"0.52 GiB segment in 1 GiB pages: one page, not two", HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 268, SharedBytes: 548864 * kB}, GiB, 2, 1},
		{"the same in 2 MiB pages", HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 268, SharedBytes: 548864 * kB}, 2 * MiB, 2, 274},
		{"8.3 GiB in 512 MiB pages (arm64 64k)", HugePageNeed{PageSizeBytes: 512 * MiB, Pages: 17, SharedBytes: 8716288 * kB}, 512 * MiB, 2, 17},
		{"pages without bytes: need x 1.02", HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 547}, 2 * MiB, 2, 558},
		{"no margin", HugePageNeed{PageSizeBytes: 2 * MiB, Pages: 547, SharedBytes: 1093 * MiB}, 2 * MiB, -1, 547},
	} {
		if got := PoolPages(c.n, c.size, c.percent); got != c.want {
			t.Errorf("%s: %d pages, want %d", c.name, got, c.want)
		}
	}
}

func TestPageTableBytes(t *testing.T) {
	for _, c := range []struct {
		name         string
		procs        int
		shared, page uint64
		want         uint64
	}{
		{"seed 001: 500 connections x 1 GiB, 4 KiB pages", 500, GiB, 4 * kB, 1000 * MiB},
		{"DOMAIN: 100 connections x 2.88 GiB = 576 MiB", 100, 2949 * MiB, 4 * kB, 100 * 2949 * MiB / 512},
		{"same in 2 MiB pages", 100, 2949 * MiB, 2 * MiB, 100 * 1475 * 8},
		{"1 GiB pages: 8 bytes per GiB", 80, 160 * GiB, GiB, 80 * 160 * 8},
		{"seed 000: 80 connections x 156 GiB touched = 25 GB", 80, 156 * GiB, 4 * kB, 24960 * MiB},
		{"page size 0 means 4 KiB", 1, 4 * kB, 0, 8},
	} {
		if got := PageTableBytes(c.procs, c.shared, c.page); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, units.Bytes(got), units.Bytes(c.want))
		}
	}
}

func TestHugePagesAndMargin(t *testing.T) {
	// DOMAIN: a 4,422,410,240 B mapping is 2109 pages of 2 MiB.
	if got := HugePagesFor(4422410240, 2*MiB); got != 2109 {
		t.Errorf("pages for the measured mapping: %d, want 2109", got)
	}
	if got := HugePagesFor(2*MiB+1, 2*MiB); got != 2 {
		t.Errorf("one byte over a page: %d pages, want 2", got)
	}
	for _, c := range []struct {
		need uint64
		pct  float64
		want uint64
	}{{547, 2, 11}, {72, 2, 2}, {2109, 2, 43}, {100, 0, 0}, {100, -1, 0}, {1, 5, 1}, {8212, 5, 411}} {
		if got := MarginPages(c.need, c.pct); got != c.want {
			t.Errorf("margin %g%% of %d: %d, want %d", c.pct, c.need, got, c.want)
		}
	}
	for _, c := range []struct {
		pages uint64
		n     int
		want  []uint64
	}{{558, 2, []uint64{279, 279}}, {559, 2, []uint64{280, 279}}, {10, 4, []uint64{3, 3, 2, 2}}, {5, 0, []uint64{5}}} {
		got := SplitNodes(c.pages, c.n)
		var sum uint64
		for i := range got {
			sum += got[i]
			if got[i] != c.want[i] {
				t.Errorf("split %d over %d: %v, want %v", c.pages, c.n, got, c.want)
				break
			}
		}
		if sum != c.pages {
			t.Errorf("split %d over %d sums to %d", c.pages, c.n, sum)
		}
	}
}

func TestUnits(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{units.Bytes(0), "0 B"}, {units.Bytes(1536), "1.50 KiB"}, {units.Bytes(25 * GiB), "25 GiB"}, {units.Bytes(143 * MiB), "143 MiB"},
		{PageSizeName(2*MiB, "postgres"), "2MB"}, {PageSizeName(GiB, "postgres"), "1GB"}, {PageSizeName(GiB, "kernel"), "1G"},
		{PageSizeName(2*MiB, "k8s"), "2Mi"}, {Quantity(1116 * MiB), "1116Mi"}, {Quantity(16 * GiB), "16Gi"}, {Quantity(MiB + 1), "2Mi"},
		{units.PG(16 * GiB), "16GB"}, {units.PG(1536 * MiB), "1536MB"}, {units.PG(64 * kB), "64kB"},
		{units.Percent(1, 3), "33%"}, {units.Percent(5, 1000), "0.5%"}, {units.Percent(1, 0), "-"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
