package advise

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql"
)

// TestMySQLThroughTheSeam: a MySQL/MariaDB server is an instance like a
// PostgreSQL one (fromMySQL): its worst case is the engine-neutral one the
// common check judges, with MySQL's id, and a term not measured
// (performance_schema without a connection) is said unknown, never 0; the
// checks that do not apply to one process that maps its buffers once
// (pagetables.projected, memory.cache_share) stay silent for it; a server
// whose buffer pool was not seen skips the huge page check under MySQL's
// id.
func TestMySQLThroughTheSeam(t *testing.T) {
	s := hostSnap(8 * GiB)
	in := mariadb("OFF")
	in.Settings["max_connections"] = mysql.Setting{Value: "1000", Source: mysql.FromServer}
	in.Settings["performance_schema"] = mysql.Setting{Value: "ON", Source: mysql.FromServer}
	s.MySQL = []*mysql.Instance{in}
	v := fromMySQL(in, 2*MiB, 0)
	if want := mysql.ComputeWorstCase(in); v.Worst.TotalBytes != want.TotalBytes || v.words.worstID != "mysql.worst_case" || v.Huge.Pages == 0 {
		t.Fatalf("view %+v", v)
	}
	r := Judge(s, Options{})
	f := mustFind(t, r.Findings, "mysql.worst_case")
	unknown := false
	for _, e := range f.Evidence {
		unknown = unknown || e.Name == "performance_schema" && strings.HasPrefix(e.Value, Unknown)
	}
	if !unknown || !strings.Contains(f.Title, "1000 max_connections") {
		t.Errorf("worst case %+v", f)
	}
	for _, fi := range r.Findings {
		if fi.Subject == MySQLSubject(in) && (fi.ID == "pagetables.projected" || fi.ID == "memory.cache_share" || fi.ID == "memory.worst_case") {
			t.Errorf("PostgreSQL's finding for a MySQL server: %s %s", fi.ID, fi.Title)
		}
	}
	in.Memory.BufferPool = nil
	skipped := false
	for _, sk := range Judge(s, Options{}).Skipped {
		skipped = skipped || sk.ID == "mysql.large_pages" && sk.Subject == MySQLSubject(in)
	}
	if !skipped {
		t.Error("no buffer pool mapping: the huge page check is not skipped as mysql.large_pages")
	}
}
