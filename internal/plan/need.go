package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/postgres"
)

// askNeed asks PostgreSQL (15+) for the pool at pageSize with set applied:
// shared_memory_size_in_huge_pages, and shared_memory_size for the bytes.
func askNeed(ctx context.Context, bin, dir string, pageSize uint64, set map[string]string, source string) (advise.HugePageNeed, error) {
	s := map[string]string{"huge_pages": "on", "huge_page_size": postgres.FormatMemory(pageSize)}
	for k, v := range set {
		s[k] = v
	}
	pages, err := askUint(ctx, bin, dir, "shared_memory_size_in_huge_pages", s)
	if err != nil {
		return advise.HugePageNeed{}, err
	}
	mb, err := askUint(ctx, bin, dir, "shared_memory_size", s)
	if err != nil {
		return advise.HugePageNeed{}, err
	}
	return advise.HugePageNeed{PageSizeBytes: pageSize, Pages: pages, SharedBytes: mb << 20, Source: source, Exact: true}, nil
}

// askPlanned asks a throwaway cluster of the same major version; when a
// preloaded library cannot be loaded there it asks again without it.
func (a *asker) askPlanned(ctx context.Context, major int, pageSize uint64, set map[string]string) (advise.HugePageNeed, []string, error) {
	bin := a.binFor(major)
	if bin == "" || major < 15 && major != 0 {
		return advise.HugePageNeed{}, nil, fmt.Errorf("no PostgreSQL %d (15+) binaries to ask", major)
	}
	c, err := a.throwaway(ctx, bin)
	if err != nil {
		return advise.HugePageNeed{}, nil, err
	}
	src := "postgres -C shared_memory_size_in_huge_pages (throwaway cluster, planned settings)"
	n, err := askNeed(ctx, bin, c.DataDir, pageSize, set, src)
	if err == nil || set["shared_preload_libraries"] == "" {
		return n, nil, err
	}
	trimmed := map[string]string{}
	for k, v := range set {
		if k != "shared_preload_libraries" {
			trimmed[k] = v
		}
	}
	n, err2 := askNeed(ctx, bin, c.DataDir, pageSize, trimmed, src+" without shared_preload_libraries")
	note := fmt.Sprintf("shared_preload_libraries=%q could not be loaded by the throwaway cluster (%v): the need leaves out what those libraries allocate; the margin must cover it",
		set["shared_preload_libraries"], firstLine(err))
	return n, []string{note}, err2
}

// estimateNeed sizes the segment from settings when PostgreSQL cannot be
// asked.
func estimateNeed(s postgres.Settings, pageSize uint64) advise.HugePageNeed {
	b, f := advise.EstimatePostgresShared(advise.PostgresSizing(s))
	return advise.HugePageNeed{PageSizeBytes: pageSize, Pages: advise.HugePagesFor(b, pageSize), SharedBytes: b, Source: f, Exact: false}
}

// sizing returns the settings that size the segment, as -c options.
func sizing(s postgres.Settings) map[string]string {
	out := map[string]string{}
	for _, n := range sizingNames {
		if v, ok := s[n]; ok && v.Value != "" {
			out[n] = v.Value
		}
	}
	return out
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
