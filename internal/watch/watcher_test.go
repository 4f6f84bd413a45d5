package watch

import (
	"math"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

func sampleAt(at time.Time, avail uint64, vm linux.VMStat, fs ...finding.Finding) *sampler.Sample {
	return &sampler.Sample{
		Snapshot: &snapshot.Snapshot{TakenAt: at, Host: linux.Host{Meminfo: linux.Meminfo{MemTotalBytes: new(uint64(8 << 30)), MemAvailableBytes: &avail}}},
		VMStat:   vm, Findings: fs,
	}
}

func TestWatcherRatesAndOOM(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w := &Watcher{}
	f1 := w.Frame(sampleAt(t0, 4<<30, linux.VMStat{PswpIn: 100, PswpOut: 50, OOMKill: 7, Has: true, HasOOMKill: true}))
	if f1.Host.Rates || f1.Host.OOMKillsNew == nil || *f1.Host.OOMKillsNew != 0 {
		t.Errorf("first frame %+v: want no rates and no new OOM kills", f1.Host)
	}
	f2 := w.Frame(sampleAt(t0.Add(2*time.Second), 3<<30, linux.VMStat{PswpIn: 300, PswpOut: 50, OOMKill: 9, Has: true, HasOOMKill: true}))
	h := f2.Host
	if !h.Rates || math.Abs(h.SwapInPerSec-100) > 1e-9 || h.SwapOutPerSec != 0 {
		t.Errorf("swap rates in %v out %v (rates %v): want 100 and 0 pages/s", h.SwapInPerSec, h.SwapOutPerSec, h.Rates)
	}
	if h.OOMKills == nil || *h.OOMKills != 9 || h.OOMKillsNew == nil || *h.OOMKillsNew != 2 || h.MemAvailableDelta == nil || *h.MemAvailableDelta != -(1<<30) {
		t.Errorf("OOM kills %v (new %v), delta %v: want 9, 2 new, -1 GiB", h.OOMKills, h.OOMKillsNew, h.MemAvailableDelta)
	}
	// A counter reset (another kernel, a wrapped counter) gives 0, not a huge rate.
	f3 := w.Frame(sampleAt(t0.Add(4*time.Second), 3<<30, linux.VMStat{PswpIn: 10, Has: true}))
	if f3.Host.SwapInPerSec != 0 {
		t.Errorf("counter went back: rate %v, want 0", f3.Host.SwapInPerSec)
	}
}

func TestWatcherFindingsFirstSeen(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	a := finding.Finding{ID: "a", Subject: "host", Severity: finding.Notice}
	b := finding.Finding{ID: "b", Subject: "host", Severity: finding.Critical}
	w := &Watcher{}
	f1 := w.Frame(sampleAt(t0, 1, linux.VMStat{}, a))
	f2 := w.Frame(sampleAt(t0.Add(time.Second), 1, linux.VMStat{}, a, b))
	if f1.Findings[0].New || !f1.Findings[0].Since.Equal(t0) {
		t.Errorf("tick 1: %+v: present from the start is not new", f1.Findings[0])
	}
	if len(f2.Findings) != 2 || f2.Findings[0].ID != "b" || !f2.Findings[0].New || f2.Findings[1].New || !f2.Findings[1].Since.Equal(t0) {
		t.Errorf("tick 2: %+v: want b (critical, new) first, then a (seen since tick 1)", f2.Findings)
	}
	w.Frame(sampleAt(t0.Add(2*time.Second), 1, linux.VMStat{}, b))
	f4 := w.Frame(sampleAt(t0.Add(3*time.Second), 1, linux.VMStat{}, a, b))
	for _, f := range f4.Findings {
		if f.ID == "a" && (!f.New || !f.Since.Equal(t0.Add(3*time.Second))) {
			t.Errorf("a came back: %+v, want new again", f)
		}
	}
}

func TestSchedule(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	c := schedule{smapsEvery: 10 * time.Second}
	var got []sampler.Mode
	for tick := 1; tick <= 8; tick++ {
		now := t0.Add(time.Duration(tick-1) * 2 * time.Second)
		m := c.next(tick, now)
		if tick == 1 {
			m = sampler.Discover // as the Sampler promotes the first Status sample
		}
		got = append(got, m)
		c.done(&sampler.Sample{Mode: m, Snapshot: &snapshot.Snapshot{TakenAt: now}})
	}
	want := []sampler.Mode{sampler.Discover, sampler.Smaps, sampler.Status, sampler.Status, sampler.Status, sampler.Status, sampler.Smaps, sampler.Status}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("modes %v, want %v (smaps on tick 2, then every 10 s at 2 s ticks)", got, want)
		}
	}
}
