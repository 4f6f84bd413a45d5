package plan

import (
	"context"
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/units"
)

// askNeed asks PostgreSQL (15+) for the pool at pageSize with set applied:
// shared_memory_size_in_huge_pages, and shared_memory_size for the bytes.
// No library is loaded (server.args), so what shared_preload_libraries
// would add is not in it (libraries.go).
func askNeed(ctx context.Context, s server, pageSize uint64, set map[string]string, source string) (advise.HugePageNeed, error) {
	c := map[string]string{"huge_pages": "on", "huge_page_size": units.PG(pageSize)}
	for k, v := range set {
		c[k] = v
	}
	pages, err := s.askUint(ctx, "shared_memory_size_in_huge_pages", c)
	if err != nil {
		return advise.HugePageNeed{}, err
	}
	mb, err := s.askUint(ctx, "shared_memory_size", c)
	if err != nil {
		return advise.HugePageNeed{}, err
	}
	return advise.HugePageNeed{PageSizeBytes: pageSize, Pages: pages, SharedBytes: mb << 20, Source: source, Exact: true}, nil
}

// askPlanned asks a throwaway cluster of the same major version, with
// only the settings that size shared memory (sizing).
func (a *asker) askPlanned(ctx context.Context, major int, pageSize uint64, set map[string]string) (advise.HugePageNeed, error) {
	s, err := a.throwawayServer(ctx, major)
	if err != nil {
		return advise.HugePageNeed{}, err
	}
	return askNeed(ctx, s, pageSize, set, "postgres -C shared_memory_size_in_huge_pages (throwaway cluster, planned settings)")
}

// throwawayServer is the throwaway cluster of a major version (15+).
func (a *asker) throwawayServer(ctx context.Context, major int) (server, error) {
	bin := a.binFor(major)
	if bin == "" || major < 15 && major != 0 {
		v := "15+"
		if major != 0 {
			v = fmt.Sprintf("%d (15+)", major)
		}
		return server{}, fmt.Errorf("no PostgreSQL %s binaries to ask%s", v, a.why())
	}
	if major == 0 {
		major, _ = pgcluster.MajorVersion(bin)
	}
	c, err := a.throwaway(ctx, bin)
	if err != nil {
		return server{}, err
	}
	cred, err := ownerOf(c.DataDir)
	if err != nil {
		return server{}, err
	}
	return server{bin: bin, major: major, dir: c.DataDir, cred: cred}, nil
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
