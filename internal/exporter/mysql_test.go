package exporter

import (
	"context"
	"errors"
	"strconv"
	"testing"

	dto "github.com/prometheus/client_model/go"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// onlyServer connects to the test's MariaDB and to no other server.
type onlyServer struct{ pid int }

func (o onlyServer) Live(ctx context.Context, in *mysql.Instance) (mysql.Live, error) {
	if in.PID != o.pid {
		return mysql.Live{}, errors.New("not the test's server")
	}
	return mysql.Connector{FS: linux.DefaultFS()}.Live(ctx, in)
}

// A real MariaDB started by the test (256 MiB buffer pool, large_pages
// off, max_connections 50) is served with its buffer pool, the page size
// the kernel really uses for it, the huge pages large_pages=ON would need,
// its worst case and its private cost, on the discovery scrape and on the
// status scrapes after it, and its Pss after a smaps pass.
func TestMySQLMetrics(t *testing.T) {
	srv := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M", "max_connections": "50"})
	s := &sampler.Sampler{FS: linux.DefaultFS(), MySQLLive: onlyServer{srv.PID}}
	e := New(Options{Sampler: s})
	gather(t, e) // discovery
	if err := e.RefreshSmaps(context.Background()); err != nil {
		t.Logf("smaps pass: %v", err) // other users' processes may be unreadable; the server's is
	}
	m := gather(t, e) // a status scrape: the server kept from the discovery
	port := strconv.Itoa(srv.Port)
	get := func(name string, more ...string) (float64, bool) {
		for _, x := range m[name] {
			ok := label(x, "port") == port
			for i := 0; i+1 < len(more); i += 2 {
				ok = ok && label(x, more[i]) == more[i+1]
			}
			if ok {
				return x.GetGauge().GetValue(), true
			}
		}
		return 0, false
	}
	const pool = 256 << 20
	checks := []struct {
		name string
		more []string
		ok   func(float64) bool
		want string
	}{
		{"dbmem_mysql_info", []string{"flavor", "mariadb", "connected", "true", "large_pages", "OFF"}, eq(1), "1 (mariadb, connected, large_pages OFF)"},
		{"dbmem_mysql_buffer_pool_bytes", nil, eq(pool), "256 MiB"},
		{"dbmem_mysql_buffer_pool_page_size_bytes", nil, eq(4096), "4096: large_pages is off"},
		{"dbmem_mysql_huge_page_mapped_bytes", nil, eq(0), "0"},
		{"dbmem_mysql_huge_pages_needed", []string{"page_size_bytes", "2097152"}, func(v float64) bool { return v >= 128+8 && v <= 400 },
			"the buffer pool's 128 pages, MariaDB's other large-page buffers (key and Aria caches, 128 MiB each by default) and at least 8 pages of margin"},
		{"dbmem_mysql_max_connections", nil, eq(50), "50"},
		{"dbmem_mysql_worst_case_bytes", []string{"part", "global"}, func(v float64) bool { return v >= pool }, "at least the buffer pool"},
		{"dbmem_mysql_worst_case_bytes", []string{"part", "connections"}, func(v float64) bool { return v >= 50*256<<10 }, "50 x the per-thread buffers"},
		{"dbmem_mysql_private_bytes", nil, func(v float64) bool { return v > 1<<20 }, "> 1 MiB"},
		{"dbmem_mysql_page_table_bytes", nil, func(v float64) bool { return v > 0 }, "> 0"},
		{"dbmem_mysql_pss_private_bytes", nil, func(v float64) bool { return v > 1<<20 }, "> 1 MiB"},
		{"dbmem_instance_scrape_success", []string{"engine", "mysql"}, eq(1), "1"},
	}
	for _, c := range checks {
		if v, ok := get(c.name, c.more...); !ok || !c.ok(v) {
			t.Errorf("%s%v on port %s = %v (found %v), want %s", c.name, c.more, port, v, ok, c.want)
		}
	}
	status, _ := get("dbmem_mysql_private_bytes")
	pss, _ := get("dbmem_mysql_pss_private_bytes")
	if pss > status {
		t.Errorf("Pss-based private %v above the RssAnon-based %v: RssAnon >= Pss_Anon always", pss, status)
	}
	if _, ok := get("dbmem_mysql_worst_case_bytes", "part", "performance_schema"); ok {
		t.Log("performance_schema measured")
	}
	logFamily(t, m["dbmem_mysql_info"])
}

func eq(want float64) func(float64) bool { return func(v float64) bool { return v == want } }

func logFamily(t *testing.T, ms []*dto.Metric) {
	for _, m := range ms {
		t.Logf("%v %v", m.GetLabel(), m.GetGauge().GetValue())
	}
}
