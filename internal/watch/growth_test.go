package watch

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/xray"
)

// growingSample is one instance with a backend whose RssAnon grows by
// 1 MiB a minute and one that stays, on a host with 2 GiB available and
// the instance in a cgroup with 600 MiB left.
func growingSample(at time.Time, minute int) *sampler.Sample {
	proc := func(pid int, anon uint64) postgres.Proc {
		pte, swap := uint64(64<<10), uint64(0)
		return postgres.Proc{Process: linux.Process{PID: pid, StartTicks: 100, Status: linux.Status{RssAnonBytes: &anon, VmPTEBytes: &pte, VmSwapBytes: &swap}},
			Title: postgres.Title{Role: postgres.RoleClient, User: "app", Database: "shop"}}
	}
	limit, usage := uint64(1<<30), uint64(424<<20)
	in := &postgres.Instance{PostmasterPID: 10, Port: 5432, Cgroup: &linux.CgroupMemory{LimitBytes: &limit, UsageBytes: &usage, LimitPath: "/system.slice/postgresql.service"},
		Processes: []postgres.Proc{proc(11, uint64(20<<20)+uint64(minute)<<20), proc(12, 8<<20)}}
	avail := uint64(2 << 30)
	return &sampler.Sample{Snapshot: &snapshot.Snapshot{TakenAt: at, Host: linux.Host{Meminfo: linux.Meminfo{MemAvailableBytes: &avail}}, Postgres: []*postgres.Instance{in}}}
}

func TestWatcherGrowth(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	w := &Watcher{}
	var f Frame
	for m := 0; m <= 30; m++ {
		f = w.Frame(growingSample(t0.Add(time.Duration(m)*time.Minute), m))
		if m < 10 && len(f.Growing) > 0 {
			t.Fatalf("growth said after %d minutes of points: %+v", m, f.Growing)
		}
	}
	if len(f.Growing) != 2 || f.Growing[0].Kind != "backend" || f.Growing[0].PID != 11 || f.Growing[1].Kind != "role" {
		t.Fatalf("growing %+v", f.Growing)
	}
	g := f.Growing[0]
	if math.Abs(g.Trend.Rate-float64(1<<20)/60) > 1 || g.Trend.Span() != 30*time.Minute {
		t.Errorf("trend %+v", g.Trend)
	}
	r, ok := g.Forecast.Soonest()
	if !ok || !strings.HasPrefix(r.Limit.Name, "the cgroup limit") || r.In != 600*time.Minute {
		t.Errorf("soonest %+v, want the cgroup's 600 MiB in 10h", r)
	}
	text := GrowingText(g)
	for _, want := range []string{"pid 11 client backend app@shop :5432", "+60.0 MiB/h over the last 30m0s", "in 10h00m", "cause unknown"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q lacks %q", text, want)
		}
	}
	// Two X-rays of the backend, the second with more outside the contexts.
	mk := func(at time.Time, outside uint64) xray.Result {
		br := xray.Breakdown{Parts: []xray.Part{{Group: xray.GroupCatalog, Bytes: 5 << 20}, {Group: xray.GroupOutside, Bytes: outside}}}
		return xray.Result{PostmasterPID: 10, Port: 5432, Backends: []xray.Backend{{PID: 11, DumpAt: at, Breakdown: &br}}}
	}
	w.NoteXRay(mk(t0.Add(20*time.Minute), 2<<20))
	w.NoteXRay(mk(t0.Add(30*time.Minute), 12<<20))
	f = w.Frame(growingSample(t0.Add(31*time.Minute), 31))
	if !strings.HasPrefix(f.Growing[0].Cause, "leak outside memory contexts") || len(f.XRays) != 2 || f.XRays[1].Parts["outside"] != 12<<20 {
		t.Errorf("cause %q, xrays %+v", f.Growing[0].Cause, f.XRays)
	}
}
