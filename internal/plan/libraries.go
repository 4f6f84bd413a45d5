package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// preloaded is the instance's shared_preload_libraries, "" when none.
func preloaded(s postgres.Settings) string {
	return strings.Trim(strings.TrimSpace(s.String("shared_preload_libraries")), "'\"")
}

// librariesNote says that the need asked of PostgreSQL leaves out the
// shared memory of the libraries it was not allowed to load.
func librariesNote(subject, libs string) string {
	return fmt.Sprintf("%s: shared_preload_libraries = '%s' were not loaded (dbmem never runs code an instance's configuration names): "+
		"the shared memory they ask for is not in its need, and the plan's margin must cover it (pg_stat_statements asks for "+
		"2-3 MiB at its default pg_stat_statements.max of 5000, 8-9 MiB at 20000). PostgreSQL counts them only where it loads "+
		"them: in SHOW shared_memory_size_in_huge_pages of the running server, or its shared mapping, which the plan of a running "+
		"server without changes takes when it can connect or read the mapping", subject, libs)
}

// withLibraries adds to a need asked of a throwaway cluster for a running
// instance with changes what its preloaded libraries take: the segment it
// runs with now (SHOW shared_memory_size, else its mapping when in pages
// of at most 2 MiB) less what PostgreSQL computes for its current settings
// without them. It returns the need and a note when that is unknown (or
// the changes name other libraries).
func (a *asker) withLibraries(ctx context.Context, pg *postgres.Instance, set postgres.Settings, size uint64, n advise.HugePageNeed) (advise.HugePageNeed, []string) {
	libs := preloaded(set)
	if libs == "" {
		return n, nil
	}
	now, from := runningSegment(pg)
	if now == 0 || libs != preloaded(pg.Settings) {
		return n, []string{librariesNote(advise.PostgresSubject(pg), libs)}
	}
	bare, err := a.askPlanned(ctx, pg.Major, size, sizing(pg.Settings))
	if err != nil {
		return n, []string{librariesNote(advise.PostgresSubject(pg), libs)}
	}
	extra := now - min(now, bare.SharedBytes)
	n.SharedBytes += extra
	n.Pages += advise.HugePagesFor(extra, size)
	n.Source += fmt.Sprintf(" + %s for shared_preload_libraries '%s' (%s %s now, less %s computed without them)",
		units.Bytes(extra), libs, from, units.Bytes(now), units.Bytes(bare.SharedBytes))
	return n, nil
}

// runningSegment is the size of the segment an instance runs with, and
// where it was read; 0 when unknown or rounded to pages above 2 MiB.
func runningSegment(pg *postgres.Instance) (uint64, string) {
	if b, ok := pg.Settings.Bytes("shared_memory_size"); ok && b > 0 && pg.Settings["shared_memory_size"].Source == postgres.FromServer {
		return b, "SHOW shared_memory_size"
	}
	if sh := pg.Shared; sh != nil && sh.SizeBytes > 0 && (!sh.Hugetlb || sh.PageSizeBytes <= 2<<20) {
		return sh.SizeBytes, "its shared mapping"
	}
	return 0, ""
}
