package watch

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/xray"
)

// growSQL makes a backend grow by rate bytes a second, paced by the wall
// clock: a PL/pgSQL array (expanded in place: nothing is copied or freed)
// gains a 64 KiB text whenever it is behind, for seconds seconds.
func growSQL(rate, seconds int) string {
	return fmt.Sprintf(`DO $$
DECLARE a text[] := '{}'; n int := 0; t0 timestamptz := clock_timestamp();
BEGIN
  WHILE clock_timestamp() < t0 + interval '%d seconds' LOOP
    IF extract(epoch FROM clock_timestamp() - t0) * %d > n::float8 * 65536 THEN
      n := n + 1;
      a[n] := repeat(chr(65 + n %% 26), 65536);
    ELSE
      PERFORM pg_sleep(0.02);
    END IF;
  END LOOP;
END $$`, seconds, rate)
}

// A backend growing at a known rate (1 MiB/s, paced by the clock) is seen
// growing by the real watch pipeline; the time it takes to grow by 24 MiB
// more is forecast within 20% of the time it really takes. Two X-rays of it
// say the running query grew.
func TestLiveGrowthForecast(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "32MB", "jit": "off"})
	conn, pid := pgtest.Connect(t, c), 0
	if err := conn.QueryRow(context.Background(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := conn.Exec(context.Background(), growSQL(1<<20, 240))
		done <- err
	}()
	live := postgres.Connector{Options: postgres.ConnOptions{Port: c.Port, Timeout: time.Minute}, Helper: postgres.NewHelper()}
	s := &sampler.Sampler{FS: liveSampler().FS, Live: live}
	w := &Watcher{Growth: growth.Options{Window: 30 * time.Second, MinSpan: 25 * time.Second, MinPoints: 10}}
	ctx := context.Background()
	g, at := watchUntilGrowing(t, s, w, pid, done)
	const headroom = 24 << 20
	f := growth.ForecastAt(g.Trend.Rate, g.Trend.From, g.Trend.To, at, []growth.Limit{{Name: "24 MiB more", HeadroomBytes: headroom}})
	want, _ := f.Soonest()
	if len(g.Forecast.Reaches) == 0 || g.Forecast.Reaches[len(g.Forecast.Reaches)-1].Limit.Name == "" || g.Forecast.Window != g.Trend.Span() {
		t.Errorf("the frame's forecast %+v names no limit or window", g.Forecast)
	}
	// X-ray it now and once it has grown: the running query grew.
	in := instanceOfPID(t, s, c.PID)
	first := xray.Run(ctx, in, []int{pid}, xray.Options{Caller: live, Wait: 2 * time.Minute})
	truth := timeToGrow(t, s, pid, g.Trend.Last+headroom, at, done)
	second := xray.Run(ctx, in, []int{pid}, xray.Options{Caller: live, Wait: 2 * time.Minute})
	errPct := math.Abs(want.In.Seconds()-truth.Seconds()) / truth.Seconds() * 100
	t.Logf("rate %.0f B/s (R² %.3f over %s), forecast %s, truth %s: %.1f%% off", g.Trend.Rate, g.Trend.R2, g.Trend.Span(), want.In, truth, errPct)
	if errPct > 20 {
		t.Errorf("forecast %s, truth %s: %.1f%% off, more than 20%%", want.In, truth, errPct)
	}
	if len(first.Backends) != 1 || len(second.Backends) != 1 {
		t.Fatalf("X-rays %+v %+v", first, second)
	}
	ch, ok := xray.Compare(first.Backends[0], second.Backends[0])
	if !ok || ch.Verdict != "query memory (work_mem)" {
		t.Errorf("two X-rays of the growing backend: %+v (%s / %s)", ch, first.Backends[0].Problem, second.Backends[0].Problem)
	}
}

// watchUntilGrowing samples every second until the watcher reports pid
// growing, and returns that growth and when.
func watchUntilGrowing(t *testing.T, s *sampler.Sampler, w *Watcher, pid int, done chan error) (Growing, time.Time) {
	t.Helper()
	for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(time.Second) {
		select {
		case err := <-done:
			t.Fatalf("the growing backend stopped before it was seen growing: %v", err)
		default:
		}
		smp, err := s.Sample(context.Background(), sampler.Status)
		if err != nil {
			t.Fatal(err)
		}
		f := w.Frame(smp)
		for _, g := range f.Growing {
			if g.Kind == "backend" && g.PID == pid {
				return g, smp.Snapshot.TakenAt
			}
		}
	}
	t.Fatal("the backend was not seen growing in 3 minutes")
	return Growing{}, time.Time{}
}

// timeToGrow samples pid until its estimate reaches target and returns the
// time from since.
func timeToGrow(t *testing.T, s *sampler.Sampler, pid int, target float64, since time.Time, done chan error) time.Duration {
	t.Helper()
	for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("the growing backend stopped before reaching the target: %v", err)
		default:
		}
		v := float64(statusField(t, pid, "RssAnon") + statusField(t, pid, "VmPTE") + statusField(t, pid, "VmSwap"))
		if v >= target {
			return time.Since(since)
		}
	}
	t.Fatal("the backend did not reach the target in 3 minutes")
	return 0
}

func instanceOfPID(t *testing.T, s *sampler.Sampler, postmaster int) *postgres.Instance {
	t.Helper()
	smp, err := s.Sample(context.Background(), sampler.Discover)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range smp.Snapshot.Postgres {
		if in.PostmasterPID == postmaster {
			return in
		}
	}
	t.Fatalf("postmaster %d not found", postmaster)
	return nil
}
