package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster"
)

// bench is one comparison run: one throwaway cluster, restarted for each
// group with other settings.
type bench struct {
	cfg      config
	self     string
	c        *pgcluster.Cluster
	name     string // cluster_name: in every backend's title, for smem -P
	readers  []*pgcluster.Readers
	results  []configResult
	notes    []string
	started  time.Time
	postgres string
}

// tableFraction of shared_buffers is the size of the table each backend
// reads, so that it stays in the buffers.
const tableFraction = 0.9

func newBench(ctx context.Context, cfg config) (*bench, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	b := &bench{cfg: cfg, self: self, name: fmt.Sprintf("dbmemfleet%d", os.Getpid()), started: time.Now()}
	b.c, err = pgcluster.Create(ctx, pgcluster.Options{Settings: map[string]string{
		"huge_pages": "off", "shared_buffers": "256MB", "max_connections": "1030", "cluster_name": b.name,
		"max_parallel_workers_per_gather": "0", "jit": "off", "autovacuum": "off"}})
	if err != nil {
		return nil, err
	}
	logf("cluster %s on port %d; should this program be killed with SIGKILL, stop it with: pg_ctl -D %s stop", b.c.Dir, b.c.Port, b.c.DataDir)
	if err := b.createTables(ctx); err != nil {
		b.remove()
		return nil, err
	}
	return b, nil
}

// createTables creates one table per shared_buffers size, frozen so that
// the readers' scans write nothing.
func (b *bench) createTables(ctx context.Context) error {
	if err := b.c.Start(ctx); err != nil {
		return err
	}
	if v, err := b.c.Postgres(ctx, "-C", "server_version"); err == nil {
		b.postgres = "PostgreSQL " + v
	}
	seen := map[string]bool{}
	for _, g := range b.cfg.groups() {
		if seen[g.Shared] {
			continue
		}
		seen[g.Shared] = true
		size, err := tableBytes(g.Shared)
		if err != nil {
			return err
		}
		start := time.Now()
		if err := b.c.CreateTable(ctx, tableName(g.Shared), int64(size)); err != nil {
			return err
		}
		if err := b.c.Exec(ctx, "VACUUM (FREEZE, ANALYZE) "+tableName(g.Shared)); err != nil {
			return err
		}
		logf("table %s: %.1f GiB in %s", tableName(g.Shared), float64(size)/(1<<30), time.Since(start).Round(time.Second))
	}
	return b.c.Stop(ctx)
}

func tableName(shared string) string { return "t_" + strings.ToLower(shared) }

func tableBytes(shared string) (uint64, error) {
	sb, err := sizeBytes(shared)
	return uint64(float64(sb) * tableFraction), err
}

// configure writes the group's settings and checks that it fits in memory.
func (b *bench) configure(ctx context.Context, g group) error {
	if err := b.c.Set(map[string]string{"shared_buffers": g.Shared, "huge_pages": g.Huge}); err != nil {
		return err
	}
	out, err := b.c.Postgres(ctx, "-C", "shared_memory_size")
	if err != nil {
		return err
	}
	segment, err := sizeBytes(out + "MB") // printed in MB, without the unit
	if err != nil {
		return err
	}
	table, _ := tableBytes(g.Shared)
	need := memoryNeed(g, segment, table)
	avail, err := memAvailable()
	if err != nil {
		return err
	}
	b.note("%s: shared memory %s, %d backends x %s touched: needs about %s (%s); MemAvailable %s",
		g.label(), gib(segment), slices.Max(g.Conns), gib(table), gib(need.total()), need, gib(avail))
	if avail < need.total()+b.cfg.Margin {
		return fmt.Errorf("needs about %s and %s must stay free (-margin-gib), MemAvailable is %s: skipped (lower -shared-buffers, -small-shared-buffers or -conns)",
			gib(need.total()), gib(b.cfg.Margin), gib(avail))
	}
	return nil
}

// growPool grows the huge page pool by what the server needs
// (huge_pages=on only).
func (b *bench) growPool(ctx context.Context, g group) (*pgcluster.HugePool, error) {
	if g.Huge != "on" {
		return nil, nil
	}
	out, err := b.c.Postgres(ctx, "-C", "shared_memory_size_in_huge_pages")
	if err != nil {
		return nil, err
	}
	pages, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil || pages <= 0 {
		return nil, fmt.Errorf("postgres -C shared_memory_size_in_huge_pages printed %q", out)
	}
	logf("%s: waiting for the kernel-settings lock to add %d huge pages", g.label(), pages)
	p, err := pgcluster.GrowHugePool(ctx, pages)
	if err != nil {
		return nil, err
	}
	b.note("%s: vm.nr_hugepages %d -> %d under %s (journal %s)", g.label(), p.Before, p.Set, pgcluster.KernelLockPath, pgcluster.KernelJournalPath)
	return p, nil
}

// start starts the server and loads the group's table into shared_buffers.
func (b *bench) start(ctx context.Context, g group) error {
	if err := b.c.Start(ctx); err != nil {
		return err
	}
	return b.c.Prewarm(ctx, tableName(g.Shared))
}

// openReaders opens connections up to n in all; each reads the table.
func (b *bench) openReaders(ctx context.Context, g group, n int) ([]int, error) {
	pids := b.readerPIDs()
	if more := n - len(pids); more > 0 {
		start := time.Now()
		r, err := b.c.OpenReaders(ctx, more, b.cfg.Parallel, tableName(g.Shared))
		if err != nil {
			return nil, err
		}
		b.readers = append(b.readers, r)
		logf("%s: %d more connections read the table in %s", g.label(), more, time.Since(start).Round(time.Second))
	}
	return b.readerPIDs(), nil
}

func (b *bench) readerPIDs() []int {
	var pids []int
	for _, r := range b.readers {
		pids = append(pids, r.PIDs...)
	}
	slices.Sort(pids)
	return pids
}

// stopAndRestore closes the readers, stops the server, then puts the
// huge page pool back and checks it.
func (b *bench) stopAndRestore(pool *pgcluster.HugePool) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, r := range b.readers {
		r.Close(ctx)
	}
	b.readers = nil
	err := b.c.Stop(ctx)
	if pool == nil {
		return err
	}
	if rerr := pool.Restore(); rerr != nil {
		return errors.Join(err, rerr)
	}
	now, rerr := os.ReadFile("/proc/sys/vm/nr_hugepages")
	b.note("vm.nr_hugepages restored to %d, reads back %s", pool.Before, strings.TrimSpace(string(now)))
	return errors.Join(err, rerr)
}

// remove stops and deletes the cluster.
func (b *bench) remove() {
	b.stopAndRestore(nil)
	if err := b.c.Remove(); err != nil {
		logf("remove %s: %v", b.c.Dir, err)
	}
}

// backendRegex matches the titles of the readers only ("postgres:
// NAME: postgres postgres [local] idle"), not the auxiliary processes.
func (b *bench) backendRegex() string {
	return "^postgres: " + regexp.QuoteMeta(b.name) + ": postgres postgres \\[local\\]"
}

func (b *bench) note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	logf("%s", s)
	b.notes = append(b.notes, s)
}

func (b *bench) fail(g group, err error) {
	b.note("%s: %v", g.label(), err)
}

func (g group) label() string {
	return fmt.Sprintf("huge_pages=%s shared_buffers=%s", g.Huge, g.Shared)
}

func memAvailable() (uint64, error) {
	m, err := linux.ReadMeminfo(linux.DefaultFS())
	if err == nil && m.MemAvailableBytes == nil {
		err = errors.New("/proc/meminfo has no MemAvailable line")
	}
	if err != nil {
		return 0, err
	}
	return *m.MemAvailableBytes, nil
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func gib(v uint64) string { return fmt.Sprintf("%.1f GiB", float64(v)/(1<<30)) }
