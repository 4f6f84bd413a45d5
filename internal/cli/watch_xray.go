package cli

import (
	"context"
	"strings"

	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/watch"
	"github.com/dbmem/dbmem/internal/xray"
)

// watchBackends sets up watch's per-backend view: each tick reads the
// backends' activity and queries over the verified connection (a live
// host, connections allowed), and the x key X-rays the selected backend.
func (e *env) watchBackends(s *sampler.Sampler, o *watch.Options) {
	o.Backends = o.Top
	conn, ok := e.liveConnector()
	if !ok {
		return
	}
	s.Backends = conn
	fs := e.fs()
	o.XRay = func(ctx context.Context, smp *sampler.Sample, pid int) xray.Result {
		return xrayOf(ctx, xray.Options{FS: fs, Caller: conn}, smp, pid)
	}
}

// xrayOf X-rays one backend of the sample's instances.
func xrayOf(ctx context.Context, xo xray.Options, smp *sampler.Sample, pid int) xray.Result {
	ts, _, err := xray.Select(smp.Snapshot.Postgres, 0, []int{pid})
	if err != nil || len(ts) != 1 {
		return xray.Result{Schema: xray.SchemaVersion, Problem: strings.TrimPrefix(errText(err), "--contexts-pid "), Backends: []xray.Backend{}}
	}
	return xray.Run(ctx, ts[0].Instance, ts[0].PIDs, xo)
}

func errText(err error) string {
	if err == nil {
		return "the backend is gone"
	}
	return err.Error()
}
