package lab

import (
	"context"
	"errors"
	"fmt"

	"github.com/dbmem/dbmem/internal/measure"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/units"
)

// runMode measures the N connections with one huge_pages setting: start,
// prewarm, open the connections in steps, measure everything, close them,
// stop.
func (r *run) runMode(ctx context.Context, m Mode) (mr *ModeResult, err error) {
	mr = &ModeResult{HugePages: m}
	if err := r.startMode(ctx, m); err != nil {
		return mr, err
	}
	defer func() { err = errors.Join(err, r.stopServer(ctx, mr)) }()
	ctl, err := r.c.Connect(ctx)
	if err != nil {
		return mr, err
	}
	defer ctl.Close(context.Background())
	var ctlPID int
	if err := ctl.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&ctlPID); err != nil {
		return mr, err
	}
	if err := r.stage(ctx, mr, "started", 0, ctlPID); err != nil {
		return mr, err
	}
	if err := r.prewarm(ctx, ctl, m); err != nil {
		return mr, err
	}
	if err := r.stage(ctx, mr, "prewarmed", 0, ctlPID); err != nil {
		return mr, err
	}
	return mr, r.connections(ctx, mr, ctlPID)
}

// connections opens the readers in steps, measures them, closes them.
func (r *run) connections(ctx context.Context, mr *ModeResult, ctlPID int) error {
	n := r.cfg.Connections
	r.steps.begin(fmt.Sprintf("huge_pages=%s: open %d connections, each reads %s", mr.HugePages, n, units.Bytes(r.res.TableBytes)), n)
	var rs []*reader
	defer func() { closeReaders(r.fs, rs) }()
	steps := min(n, 10)
	for i := 1; i <= steps; i++ {
		var err error
		if rs, err = r.openReaders(ctx, rs, i*n/steps); err != nil {
			return err
		}
		st, err := r.connStep(rs)
		if err != nil {
			return err
		}
		mr.Steps = append(mr.Steps, st)
	}
	if err := r.stage(ctx, mr, "open", n, ctlPID); err != nil {
		return err
	}
	r.steps.begin(fmt.Sprintf("huge_pages=%s: read smaps_rollup of %d backends", mr.HugePages, n), n)
	for _, rd := range rs {
		b, ok, err := readBackend(r.fs, rd.b.PID, measure.Smaps)
		if err != nil || !ok {
			return fmt.Errorf("reader %d: gone or unreadable: %v", rd.b.PID, err)
		}
		b.ScanPTEBytes, b.ScanMinFlt, b.ScanTime = rd.b.ScanPTEBytes, rd.b.ScanMinFlt, rd.b.ScanTime
		mr.Readers = append(mr.Readers, b)
		r.prog.Add(1)
	}
	closeReaders(r.fs, rs)
	rs = nil
	if err := r.stage(ctx, mr, "closed", 0, ctlPID); err != nil {
		return err
	}
	mr.Cost = computeCost(mr.Stage("prewarmed"), mr.Stage("open"), mr.Stage("closed"), mr.Readers, r.res.TableBytes)
	return nil
}

// connStep reads the host's page tables and the readers' (instantly: the
// chart of page tables against connections).
func (r *run) connStep(rs []*reader) (ConnStep, error) {
	m, err := readMem(r.fs)
	if err != nil {
		return ConnStep{}, err
	}
	st := ConnStep{Connections: len(rs), PageTablesBytes: m.PageTablesBytes, MemAvailableBytes: m.MemAvailableBytes}
	for _, rd := range rs {
		s, err := readStatusMem(r.fs, rd.b.PID)
		if err != nil {
			return st, fmt.Errorf("reader %d: %w", rd.b.PID, err)
		}
		st.ReadersPTEBytes += s.VmPTE
	}
	return st, nil
}

// groundTruthStage are the stages the ground truth is computed from.
var groundTruthStage = map[string]bool{"prewarmed": true, "open": true, "closed": true}

// stage takes a settled reading of the host and samples the cluster's
// processes (Pss for the postmaster and the checkpointer).
func (r *run) stage(ctx context.Context, mr *ModeResult, name string, conns, ctlPID int) error {
	r.steps.begin(fmt.Sprintf("huge_pages=%s: wait for meminfo to settle (%s)", mr.HugePages, name), 0)
	so := r.opt.Settle.withDefaults()
	if !groundTruthStage[name] {
		so.Max = min(so.Max, so.Window+so.Window/4) // for the record only: do not wait long
	}
	rd, err := r.read(ctx, name, conns, so)
	if err != nil {
		return err
	}
	if r.c.PID != 0 {
		if rd.Procs, err = sampleProcs(r.fs, r.c.PID, ctlPID, false); err != nil {
			return err
		}
	}
	mr.Readings = append(mr.Readings, rd)
	r.steps.end()
	return nil
}

// Stage returns the reading of a stage (zero if there is none).
func (mr *ModeResult) Stage(stage string) Reading {
	for _, rd := range mr.Readings {
		if rd.Stage == stage {
			return rd
		}
	}
	return Reading{}
}

// startMode sets huge_pages (growing the pool for on) and starts the server.
func (r *run) startMode(ctx context.Context, m Mode) error {
	r.steps.begin(fmt.Sprintf("huge_pages=%s: start the server", m), 0)
	if m == ModeOn {
		if err := r.growPool(); err != nil {
			return err
		}
		if err := r.checkPoolFree(); err != nil {
			return err
		}
	}
	if err := r.c.Set(map[string]string{"huge_pages": string(m)}); err != nil {
		return err
	}
	if err := r.c.Start(ctx); err != nil {
		return err
	}
	r.steps.end()
	return nil
}

// stopServer stops the server and, for the mode's result, reads the host
// once more.
func (r *run) stopServer(ctx context.Context, mr *ModeResult) error {
	if err := r.c.Stop(context.Background()); err != nil {
		return err
	}
	if mr == nil || ctx.Err() != nil {
		return nil
	}
	return r.stage(ctx, mr, "stopped", 0, 0)
}

// prewarm loads pgbench_accounts into shared_buffers in 20 chunks.
func (r *run) prewarm(ctx context.Context, ctl *pgx.Conn, m Mode) error {
	blocks := int64(r.res.TableBytes / 8192)
	const chunks = 20
	r.steps.begin(fmt.Sprintf("huge_pages=%s: prewarm %s into shared_buffers", m, units.Bytes(r.res.TableBytes)), chunks)
	for i := int64(0); i < chunks; i++ {
		first, last := i*blocks/chunks, (i+1)*blocks/chunks-1
		if last < first {
			continue
		}
		if _, err := ctl.Exec(ctx, "SELECT pg_prewarm('pgbench_accounts', 'buffer', 'main', $1, $2)", first, last); err != nil {
			return fmt.Errorf("prewarm pgbench_accounts blocks %d-%d: %w", first, last, err)
		}
		r.prog.Add(1)
	}
	r.steps.end()
	return nil
}
