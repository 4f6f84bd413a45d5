package lab

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// scanSQL reads every tuple of the heap. Index scans are disabled: on a
// vacuumed table count(*) alone would read only the primary key's index.
const scanSQL = `SELECT count(*), sum(abalance) FROM pgbench_accounts`

// readerSetup makes the backend scan the heap itself, page by page.
var readerSetup = []string{"SET max_parallel_workers_per_gather = 0", "SET enable_indexscan = off",
	"SET enable_indexonlyscan = off", "SET enable_bitmapscan = off"}

// reader is one idle connection that has read the whole table.
type reader struct {
	conn *pgx.Conn
	b    Backend // PID and the scan figures; the rest is read later
}

// openReader connects, reads the backend's page tables, reads every page of
// pgbench_accounts (a sequential scan of a table already in
// shared_buffers, without parallel workers, so this backend maps every
// buffer itself) and reads the page tables again.
func (r *run) openReader(ctx context.Context) (*reader, error) {
	conn, err := r.c.Connect(ctx)
	if err != nil {
		return nil, err
	}
	rd := &reader{conn: conn}
	if err := rd.scan(ctx, r.fs); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return rd, nil
}

func (rd *reader) scan(ctx context.Context, fs linux.FS) error {
	for _, q := range readerSetup {
		if _, err := rd.conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if err := rd.conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&rd.b.PID); err != nil {
		return fmt.Errorf("backend pid: %w", err)
	}
	pte0, flt0, err := pteAndFaults(fs, rd.b.PID)
	if err != nil {
		return err
	}
	start := time.Now()
	var n, sum int64
	if err := rd.conn.QueryRow(ctx, scanSQL).Scan(&n, &sum); err != nil {
		return fmt.Errorf("read pgbench_accounts: %w", err)
	}
	rd.b.ScanTime = time.Since(start)
	pte1, flt1, err := pteAndFaults(fs, rd.b.PID)
	if err != nil {
		return err
	}
	rd.b.ScanPTEBytes, rd.b.ScanMinFlt = units.Sub(pte1, pte0), units.Sub(flt1, flt0)
	return nil
}

func pteAndFaults(fs linux.FS, pid int) (pte, minflt uint64, err error) {
	st, err := readStatusMem(fs, pid)
	if err != nil {
		return 0, 0, fmt.Errorf("backend %d: %w", pid, err)
	}
	s, err := linux.ReadStat(fs, pid)
	if err != nil {
		return 0, 0, fmt.Errorf("backend %d: %w", pid, err)
	}
	return st.VmPTE, s.MinFlt, nil
}

// openReaders opens readers from have to want, two at a time (one per
// core on the target machine), counting each on the progress bar.
func (r *run) openReaders(ctx context.Context, have []*reader, want int) ([]*reader, error) {
	n := want - len(have)
	out := make([]*reader, n)
	errs := make([]error, n)
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = r.openReader(ctx)
			r.prog.Add(1)
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			closeReaders(r.fs, append(have, out...))
			return nil, err
		}
		have = append(have, out[i])
	}
	return have, nil
}

// closeReaders closes every connection and waits until their backends
// exited, so that the memory they held is free.
func closeReaders(fs linux.FS, rs []*reader) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, rd := range rs {
		if rd != nil {
			rd.conn.Close(ctx)
		}
	}
	for _, rd := range rs {
		if rd != nil {
			waitExit(fs, rd.b.PID, 10*time.Second)
		}
	}
}

// waitExit waits up to d for pid to exit (a zombie counts as exited).
func waitExit(fs linux.FS, pid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		st, err := linux.ReadStat(fs, pid)
		if err != nil || st.State == "Z" {
			return true
		}
	}
	return false
}
