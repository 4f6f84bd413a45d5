package lab

import (
	"context"
	"fmt"

	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// hugePagesNeeded asks `dbmem plan`'s code for the huge pages of the
// stopped cluster: plan.Build for a data directory runs
// `postgres -D DIR -C shared_memory_size_in_huge_pages` (15+). When the
// plan cannot be built it asks postgres -C itself and says so.
func (r *run) hugePagesNeeded(ctx context.Context) (int, string, error) {
	snap, err := snapshot.Take(ctx, snapshot.Options{FS: r.fs})
	if err == nil {
		in, perr := plan.Build(ctx, plan.Request{Snapshot: snap, DataDir: r.c.DataDir, Bin: r.opt.Bin})
		if perr == nil && len(in.Instances) == 1 && in.Instances[0].Need.Exact && in.Instances[0].Need.Pages > 0 {
			n := in.Instances[0].Need
			return int(n.Pages), "dbmem plan, from postgres -C shared_memory_size_in_huge_pages", nil
		}
		err = perr
		if err == nil {
			err = fmt.Errorf("the plan has no exact huge page need for %s", r.c.DataDir)
		}
	}
	r.res.Notes = append(r.res.Notes, fmt.Sprintf("dbmem plan could not size the pool (%v): asked postgres -C directly", err))
	out, err := r.c.Postgres(ctx, "-C", "shared_memory_size_in_huge_pages")
	if err != nil {
		return 0, "", fmt.Errorf("ask PostgreSQL for its huge page need: %w", err)
	}
	var pages int
	if _, err := fmt.Sscan(out, &pages); err != nil || pages <= 0 {
		return 0, "", fmt.Errorf("postgres -C shared_memory_size_in_huge_pages printed %q, not a page count", out)
	}
	return pages, "postgres -C shared_memory_size_in_huge_pages", nil
}
