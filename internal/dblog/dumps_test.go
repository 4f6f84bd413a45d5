package dblog

import (
	"strings"
	"testing"
)

// Recorded on this machine with scripts like the X-ray's live tests: one
// backend with a prepared statement and an open cursor, its memory contexts
// logged by pg_log_backend_memory_contexts, in each log format the version
// has (logging_collector on, log_destination = 'stderr,csvlog[,jsonlog]').
func TestContextDumpsRecorded(t *testing.T) {
	cases := []struct {
		file       string
		pid        int
		contexts   int
		grand      uint64
		cacheTotal uint64
	}{
		{"postgresql-14-log-memory-contexts.log", 1182, 117, 1726632, 1048576},
		{"postgresql-14-log-memory-contexts.csv", 1182, 117, 1726632, 1048576},
		{"postgresql-15-log-memory-contexts.log", 1845, 122, 1763488, 1048576},
		{"postgresql-15-log-memory-contexts.json", 1845, 122, 1763488, 1048576},
		{"postgresql-16-log-memory-contexts.log", 1427, 124, 1819328, 1048576},
		{"postgresql-17-log-memory-contexts.log", 1638, 125, 1825600, 1048576},
		{"postgresql-17-log-memory-contexts.csv", 1638, 125, 1825600, 1048576},
		{"postgresql-18-log-memory-contexts.log", 1724, 126, 1896576, 1048576},
		{"postgresql-18-log-memory-contexts.json", 1724, 126, 1896576, 1048576},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			log := parsePGFile(t, c.file)
			if len(log.ContextDumps) != 1 {
				t.Fatalf("%d dumps", len(log.ContextDumps))
			}
			d := log.ContextDumps[0]
			if d.PID != c.pid || len(d.Contexts) != c.contexts || d.GrandTotal == nil || d.GrandTotal.TotalBytes != c.grand {
				t.Errorf("pid %d, %d contexts, grand total %+v", d.PID, len(d.Contexts), d.GrandTotal)
			}
			if !d.Complete || !d.Header || d.Problem != "" {
				t.Errorf("complete %v header %v problem %q", d.Complete, d.Header, d.Problem)
			}
			top := d.Contexts[0]
			if top.Name != "TopMemoryContext" || top.Depth != 0 {
				t.Errorf("first context %+v", top)
			}
			var cache, plan *MemoryContext
			for i, x := range d.Contexts {
				switch x.Name {
				case "CacheMemoryContext":
					cache = &d.Contexts[i]
				case "CachedPlanSource":
					plan = &d.Contexts[i]
				}
			}
			if cache == nil || cache.Depth != 1 || cache.TotalBytes != c.cacheTotal {
				t.Errorf("CacheMemoryContext %+v", cache)
			}
			if plan == nil || plan.Depth != 2 || !strings.HasPrefix(plan.Ident, "prepare q1 as select count(*)") {
				t.Errorf("CachedPlanSource %+v", plan)
			}
		})
	}
}
