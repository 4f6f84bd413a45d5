package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/growth"
	"github.com/dbmem/dbmem/internal/history"
)

// defaultHistory is where dbmem-watch-record.service records.
const defaultHistory = "/var/lib/dbmem/watch.db"

// growthFindings adds to r what a recording says of steady growth: the
// roles and backends whose private cost grew steadily over the window
// before now, with when each limit is reached. A recording that is
// missing (the default path) adds nothing; one that is old or unreadable
// is a skipped check, never a silent "no growth".
func growthFindings(ctx context.Context, r *advise.Result, path string, given bool, o growth.Options, now time.Time) {
	if path == "" {
		return
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && !given {
		return
	}
	o = o.Defaults()
	h, err := history.Load(ctx, path, now.Add(-2*o.Window), time.Time{})
	skip := func(why string) {
		r.Skipped = append(r.Skipped, advise.Skipped{ID: history.GrowthFindingID, Subject: "host", Missing: []string{why}})
	}
	switch {
	case err != nil:
		skip(err.Error())
		return
	case h.Samples == 0 || now.Sub(h.To) > o.Window/2:
		skip(fmt.Sprintf("a recent recording (%s has no sample in the last %s: is dbmem-watch-record running?)", path, o.Window/2))
		return
	}
	r.Findings = append(r.Findings, history.GrowthFindings(h.Growth(o), path)...)
	sort.SliceStable(r.Findings, func(i, j int) bool { return r.Findings[i].Severity > r.Findings[j].Severity })
}
