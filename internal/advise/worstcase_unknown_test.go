package advise

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestWorstCaseUnknownSettings: a postmaster whose configuration could not
// be read, with max_connections and temp_buffers on its command line. Only
// the temp_buffers line can be computed; every other line is skipped with
// the settings it lacked, never computed on PostgreSQL's defaults; the
// finding says "at least" and shows no "0 B pages"; the version is
// unknown. With nothing computable the check is skipped.
func TestWorstCaseUnknownSettings(t *testing.T) {
	in := &postgres.Instance{PostmasterPID: 607, DataDir: "/srv/pg", Settings: postgres.Settings{
		"data_directory": pgSet("/srv/pg"), "max_connections": pgSet("120"), "temp_buffers": pgSet("8MB", 8*MiB)}}
	wc := PostgresWorkload(in, 0).WorstCase()
	if d := cmp.Diff([]WorstCaseLine{{Name: "temp_buffers", Formula: "120 max_connections x 8 MiB temp_buffers", Bytes: 960 * MiB}}, wc.Lines); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
	var skipped []string
	for _, l := range wc.Skipped {
		skipped = append(skipped, l.Name+": "+strings.Join(l.Missing, ","))
	}
	want := []string{
		"sorts and hashes: work_mem,hash_mem_multiplier", "parallel workers: max_parallel_workers,work_mem,hash_mem_multiplier",
		"autovacuum: autovacuum_max_workers,maintenance_work_mem", "JIT: jit", "backend baseline: max_parallel_workers,autovacuum_max_workers",
		"page tables: max_parallel_workers,autovacuum_max_workers,shared_buffers," + UnknownPageSize, "shared memory: shared_buffers",
	}
	if d := cmp.Diff(want, skipped); d != "" {
		t.Errorf("skipped lines (-want +got):\n%s", d)
	}
	if wc.TotalBytes != 960*MiB || wc.Known("private") || wc.Known("page tables") || wc.Known("shared memory") {
		t.Errorf("total %d, known private/page tables/shared %v/%v/%v", wc.TotalBytes, wc.Known("private"), wc.Known("page tables"), wc.Known("shared memory"))
	}
	s := hostSnap(16 * GiB)
	s.Postgres = append(s.Postgres, in)
	r := Judge(s, Options{})
	var f *finding.Finding
	for i := range r.Findings {
		if r.Findings[i].ID == "memory.worst_case" {
			f = &r.Findings[i]
		}
	}
	if f == nil || !strings.HasPrefix(f.Title, "worst case at least 960 MiB") || f.Subject != "postgresql (version unknown) pid 607 (/srv/pg)" {
		t.Fatalf("memory.worst_case: %+v", f)
	}
	for _, e := range f.Evidence {
		if strings.Contains(e.Value, "0 B pages") || (e.Name == "page tables" && !strings.HasPrefix(e.Value, Unknown)) {
			t.Errorf("evidence %s: %s", e.Name, e.Value)
		}
	}
	delete(in.Settings, "temp_buffers")
	r = Judge(s, Options{})
	for _, f := range r.Findings {
		if f.ID == "memory.worst_case" || f.ID == "pagetables.projected" || f.ID == "memory.cache_share" {
			t.Errorf("%s on unread settings: %s", f.ID, f.Title)
		}
	}
	if !skippedHas(r.Skipped, "memory.worst_case", "temp_buffers") || !skippedHas(r.Skipped, "pagetables.projected", "shared_buffers") {
		t.Errorf("skipped: %+v", r.Skipped)
	}
}

func skippedHas(sk []Skipped, id, missing string) bool {
	for _, s := range sk {
		if s.ID == id && strings.Contains(strings.Join(s.Missing, " "), missing) {
			return true
		}
	}
	return false
}
