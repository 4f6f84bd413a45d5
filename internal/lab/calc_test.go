package lab

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

func TestResolveDefaults(t *testing.T) {
	for _, tc := range []struct {
		name          string
		o             Options
		avail         uint64
		sb            uint64
		conns, scale  int
		runs          int
		benchSecs     float64
		errorContains string
	}{
		{"24 GiB host: capped at 1.5 GiB", Options{}, 22 * units.GiB, 1536 << 20, 100, 9, 2, 15, ""},
		{"4 GiB host: a quarter, rounded down to 128 MiB", Options{}, 3*units.GiB + 300<<20, 768 << 20, 100, 5, 2, 15, ""},
		{"quick", Options{Common: Common{Quick: true}}, 22 * units.GiB, units.GiB, 25, 6, 1, 5, ""},
		{"explicit", Options{SharedBuffersBytes: 2 * units.GiB, Connections: 7, NoBench: true}, 22 * units.GiB, 2 * units.GiB, 7, 13, 0, 15, ""},
		{"tiny host", Options{}, 400 << 20, 0, 0, 0, 0, 0, "too small"},
		{"bad mode", Options{Modes: []Mode{"try"}}, 22 * units.GiB, 0, 0, 0, 0, 0, "use off and/or on"},
	} {
		c, err := Resolve(tc.o, Mem{MemAvailableBytes: tc.avail, MemTotalBytes: 24 * units.GiB})
		if tc.errorContains != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errorContains) {
				t.Errorf("%s: err %v, want %q", tc.name, err, tc.errorContains)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.SharedBuffersBytes != tc.sb || c.Connections != tc.conns || c.Scale != tc.scale || c.BenchRuns != tc.runs || c.BenchSeconds != tc.benchSecs {
			t.Errorf("%s: got sb %d conns %d scale %d runs %d secs %v; want %d %d %d %d %v", tc.name,
				c.SharedBuffersBytes, c.Connections, c.Scale, c.BenchRuns, c.BenchSeconds, tc.sb, tc.conns, tc.scale, tc.runs, tc.benchSecs)
		}
		if tb := float64(c.TableBytes()) / float64(c.SharedBuffersBytes); tb < 0.7 || tb > 0.9 {
			t.Errorf("%s: table is %.2f of shared_buffers, want about 0.8", tc.name, tb)
		}
	}
}

func TestCheckFits(t *testing.T) {
	c, err := Resolve(Options{}, Mem{MemAvailableBytes: 22 * units.GiB})
	if err != nil {
		t.Fatal(err)
	}
	segment := uint64(2109) << 21 // measured: -C printed 2109 for 4 GiB
	// 4.1 GiB segment + 104 x (2.3 + 4) MiB + 2.4 GiB margin = 7.1 GiB.
	host := Mem{MemTotalBytes: 24 * units.GiB, MemAvailableBytes: 22 * units.GiB}
	if err := checkFits(c, segment, host); err != nil {
		t.Errorf("the default experiment does not fit a 24 GiB host: %v", err)
	}
	host.MemAvailableBytes = 7 * units.GiB
	err = checkFits(c, segment, host)
	if err == nil || !strings.Contains(err.Error(), "lower --shared-buffers or --connections") {
		t.Errorf("7 GiB available: %v, want a refusal that says what to lower", err)
	}
	n := estimateNeed(c, segment, host)
	if want := uint64(104) * (4<<20 + c.TableBytes()/512); n.ConnectionsBytes != want {
		t.Errorf("connections need %d, want %d", n.ConnectionsBytes, want)
	}
}

func TestComputeCost(t *testing.T) {
	before := Reading{MemAvailableBytes: 20 * units.GiB, UsedBytes: 2 * units.GiB, PageTablesBytes: 10 << 20, ClientBytes: 4 << 20,
		Settle: Settle{SpreadBytes: 1 << 20}}
	// 30 MiB that the backends freed wait on the per-CPU lists: out of
	// MemAvailable, yet free.
	open := Reading{MemAvailableBytes: 20*units.GiB - 832<<20, PCPFreeBytes: 30 << 20, UsedBytes: 2*units.GiB + 802<<20, PageTablesBytes: 610 << 20, ClientBytes: 6 << 20,
		Settle: Settle{SpreadBytes: 2 << 20}}
	closed := Reading{MemAvailableBytes: 20*units.GiB - 2<<20, ClientBytes: 5 << 20}
	var rs []Backend
	for i := 0; i < 100; i++ {
		rs = append(rs, Backend{HasPss: true, PssAnonBytes: 1 << 20, RssAnonBytes: 3 << 20, VmPTEBytes: 7 << 20,
			RSSBytes: 3 * units.GiB, PssBytes: 40 << 20, ScanPTEBytes: 6 << 20, ScanMinFlt: 50000, OOMScore: 700 + i%3})
	}
	c := computeCost(before, open, closed, rs, 3*units.GiB)
	if c.TruthBytes != 800<<20 || c.UsedRiseBytes != 800<<20 || c.CloseRiseBytes != 799<<20 {
		t.Errorf("truth %d, used %d, close %d; want 800 MiB, 800 MiB and 799 MiB (client growth subtracted)", c.TruthBytes>>20, c.UsedRiseBytes>>20, c.CloseRiseBytes>>20)
	}
	if c.PredictedBytes != 800<<20 || *c.PredictedErr != 0 {
		t.Errorf("predicted %d err %v; want 800 MiB exactly", c.PredictedBytes>>20, *c.PredictedErr)
	}
	if math.Abs(*c.RSSErr-(300*1024/800.0-1)) > 1e-9 {
		t.Errorf("RSS error %v", *c.RSSErr)
	}
	if c.PageTablesPerConnGiB != 2<<20 || c.ScanPTEPerGiB != 2<<20 || c.ScanFaultsPerCn != 50000 {
		t.Errorf("page tables per conn per GiB %v, scan %v, faults %v; want 2 MiB, 2 MiB, 50000", c.PageTablesPerConnGiB, c.ScanPTEPerGiB, c.ScanFaultsPerCn)
	}
	if c.NoiseBytes != 2<<20 || c.MaxReaderOOMScore != 702 { // spread 2 MiB > 1 MiB disagreement
		t.Errorf("noise %d, max oom %d", c.NoiseBytes, c.MaxReaderOOMScore)
	}
	if z := computeCost(open, before, closed, rs, 3*units.GiB); z.PredictedErr != nil || !strings.Contains(z.NoTruth, "instead of falling") {
		t.Errorf("a negative truth: error %v, %q; want none and \"not measured\" with the reason", z.PredictedErr, z.NoTruth)
	}
	if c.NoTruth != "" {
		t.Errorf("a quiet host's truth not measured: %s", c.NoTruth)
	}
}

// TestJudgeTruth: the fall of MemAvailable counts as the ground truth only
// when the host moved at most 10% of it on its own; otherwise the summary
// says "not measured" with the reason and shows no error against it.
func TestJudgeTruth(t *testing.T) {
	quiet := Cost{Connections: 25, TruthBytes: 72 << 20, NoiseBytes: 7 << 20}
	e := 0.011
	quiet.PredictedErr = &e
	if why := judgeTruth(quiet); why != "" {
		t.Errorf("noise 9.7%%: %s", why)
	}
	noisy := quiet
	noisy.NoiseBytes = 62 << 20
	why := judgeTruth(noisy)
	if !strings.Contains(why, "86%") || !strings.Contains(why, units.Bytes(62<<20)) {
		t.Errorf("noise 86%%: %q, want the share and the size", why)
	}
	r := &Result{Config: Config{Connections: 25}, Modes: []*ModeResult{{HugePages: ModeOff, Cost: noisy}, {HugePages: ModeOn, Cost: quiet}}}
	var b strings.Builder
	Text(&b, r)
	out := b.String()
	for _, want := range []string{"not measured (" + units.Bytes(72<<20) + ")", "huge_pages=off: ground truth not measured: " + why, "do not depend on it"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(+1.1%)  ") || strings.Count(out, "+1.1%") != 1 {
		t.Errorf("the error against a truth not measured is shown, or the quiet one is not:\n%s", out)
	}
}

// TestSettle reads a fixed meminfo (a recorded 6.18 one: the lab needs
// every line it measures with): it settles after one window, and a bound
// shorter than the window returns an unsettled reading.
func TestSettle(t *testing.T) {
	dir := t.TempDir()
	meminfo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off", "proc", "meminfo"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "meminfo"), meminfo, 0o644); err != nil {
		t.Fatal(err)
	}
	want, _ := linux.ParseMeminfo(bytes.NewReader(meminfo))
	fs := linux.FS{Proc: dir, Sys: dir, Root: dir}
	m, s, err := settle(context.Background(), fs, SettleOptions{Interval: 5 * time.Millisecond, Window: 20 * time.Millisecond})
	if err != nil || !s.Settled || s.SpreadBytes != 0 || want.MemAvailableBytes == nil || m.MemAvailableBytes != *want.MemAvailableBytes {
		t.Errorf("got %+v %+v %v", m.MemAvailableBytes, s, err)
	}
	_, s, _ = settle(context.Background(), fs, SettleOptions{Interval: 5 * time.Millisecond, Window: time.Second, Max: 20 * time.Millisecond})
	if s.Settled {
		t.Error("settled before a full window was read")
	}
}

// TestLockHostSaysItWaits: with the lock held elsewhere the lab says once
// that it waits, and gives up when its context ends.
func TestLockHostSaysItWaits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lock")
	held, err := hostchange.TakeLock(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	told := 0
	l, err := lockHost(ctx, path, func() { told++ })
	if err == nil || told != 1 {
		t.Errorf("lock held elsewhere: err %v, told %d times; want an error after saying it once", err, told)
	}
	l.Release()
	held.Release()
	if l, err = lockHost(context.Background(), path, func() { t.Error("waited for a free lock") }); err != nil {
		t.Errorf("free lock: %v", err)
	}
	l.Release()
}
