package history

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/watch"
)

// growingFrame is minute m of a recording: backend 4242 grows by 2 MiB a
// minute, backend 4243 stays, 3 GiB are available, the instance's cgroup
// has 1 GiB left; X-rays of 4242 at minutes 10 and 40 show its catalog
// caches growing.
func growingFrame(m int) watch.Frame {
	port, dir := 5432, "/var/lib/postgresql/15/main"
	est := func(v uint64) *uint64 { return &v }
	f := watch.Frame{
		At: t0.Add(time.Duration(m) * time.Minute), Tick: m + 1, Mode: "status",
		Host:      watch.HostFrame{MemAvailableBytes: est(3 << 30), OvercommitMemory: new(int64(0))},
		Instances: []watch.Instance{{PostmasterPID: 10, Port: &port, DataDir: dir, CgroupLimitBytes: est(4 << 30), CgroupUsageBytes: est(3 << 30)}},
		Backends: []watch.Backend{
			{PID: 4242, PostmasterPID: 10, Port: &port, Role: "client backend", User: "app", Database: "shop", StartTicks: 99, EstimateBytes: est(uint64(20<<20) + uint64(m)*(2<<20))},
			{PID: 4243, PostmasterPID: 10, Port: &port, Role: "client backend", User: "app", Database: "shop", StartTicks: 98, EstimateBytes: est(9 << 20)},
		},
	}
	if m == 10 || m == 40 {
		f.XRays = []watch.XRayParts{{PID: 4242, PostmasterPID: 10, Port: &port, Role: "client backend", At: f.At,
			Parts: map[string]int64{"catalog": int64(10<<20) + int64(m)*(2<<20), "outside": 3 << 20}}}
	}
	return f
}

func TestGrowthRecordedAndForecast(t *testing.T) {
	s, path := openTemp(t, 0)
	for m := 0; m <= 40; m++ {
		if err := s.Add(growingFrame(m)); err != nil {
			t.Fatal(err)
		}
	}
	h, err := Load(context.Background(), path, time.Time{}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	h.Growing, h.GrowthWindow = h.Growth(growth.Options{}), 30*time.Minute
	if len(h.Growing) != 2 || h.Growing[0].Kind != "backend" || h.Growing[0].PID != "4242" || h.Growing[1].Kind != "role" {
		t.Fatalf("growing %+v", h.Growing)
	}
	g := h.Growing[0]
	r, ok := g.Forecast.Soonest()
	// 1 GiB of cgroup headroom at 2 MiB a minute: 512 minutes.
	if !ok || r.Limit.Name != "the cgroup limit" || r.In != 512*time.Minute || g.Forecast.Window != 30*time.Minute {
		t.Errorf("forecast %+v", g.Forecast)
	}
	if g.Cause != "cache growth: between the X-rays of 12:10:00 and 12:40:00, catalog caches grew by 60M of 60M" {
		t.Errorf("cause %q", g.Cause)
	}
	var txt, page bytes.Buffer
	if err := Text(&txt, h, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GROWTH  steady growth", "pid 4242 client backend app@shop", "+2.0 MiB/min over 30m0s", "the cgroup limit (1G left) in 8h32m, MemAvailable (3G left) in 25h36m at the rate of 11-22 12:10 .. 11-22 12:40 UTC", "cache growth"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, txt.String())
		}
	}
	if strings.Contains(txt.String(), "role=client backend") {
		t.Errorf("role series listed with the instance's series:\n%s", txt.String())
	}
	if err := HTML(&page, h); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "Growth and time to OOM") || !strings.Contains(page.String(), "pid 4242 client backend app@shop") {
		t.Errorf("HTML lacks the growth table")
	}
}
