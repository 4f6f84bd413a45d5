package audit_test

import (
	"context"
	"errors"
	"html"
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/audit"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// onlyServer connects to the test's server only, never the host's.
type onlyServer struct{ pid int }

func (o onlyServer) Live(ctx context.Context, in *mysql.Instance) (mysql.Live, error) {
	if in.PID != o.pid {
		return mysql.Live{}, errors.New("not the test's server")
	}
	return mysql.Connector{FS: linux.DefaultFS()}.Live(ctx, in)
}

// TestAuditMySQLSection audits a real MariaDB the test starts (never the
// host's 3306): its section shows the buffer pool as set and as mapped,
// the per-thread worst case and the total, and says unknown when a
// setting is missing rather than summing without it.
func TestAuditMySQLSection(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M", "max_connections": "50", "sort_buffer_size": "4M"})
	s, err := snapshot.Take(context.Background(), snapshot.Options{FS: linux.DefaultFS(), MySQLLive: onlyServer{srv.PID}})
	if err != nil {
		t.Fatal(err)
	}
	var in *mysql.Instance
	for _, m := range s.MySQL {
		if m.PID == srv.PID {
			in = m
		}
	}
	if in == nil || !in.Connected {
		t.Fatalf("test server %d not read over SQL (gaps %v)", srv.PID, s.Gaps)
	}
	s.MySQL, s.Postgres = []*mysql.Instance{in}, nil
	page := html.UnescapeString(render(t, audit.Input{Command: "dbmem report", Snapshot: s}))
	sec := section(t, page, `<h2 id="mysql-0">`)
	for _, want := range []string{advise.MySQLSubject(in), "innodb_buffer_pool_size 256 MiB (server)", "resident",
		"per thread: sort_buffer_size</td><td class=\"n\">4 MiB", "50 max_connections x", "of RAM)", "<svg"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the MySQL section lacks %q:\n%s", want, sec)
		}
	}
	if !strings.Contains(page, `<a href="#mysql-0">`) {
		t.Error("the contents do not list the MySQL section")
	}
	wc := mysql.ComputeWorstCase(in)
	if bp := in.Memory.BufferPool; bp == nil || bp.SizeBytes < 256<<20 || wc.Lines[0].Bytes < 256<<20 || wc.MaxConnections != 50 {
		t.Fatalf("buffer pool %+v, worst case %+v", bp, wc)
	}
	delete(in.Settings, "max_connections")
	sec = section(t, html.UnescapeString(render(t, audit.Input{Command: "dbmem report", Snapshot: s})), `<h2 id="mysql-0">`)
	if !strings.Contains(sec, `<span class="stake">unknown</span> (unknown of RAM): not read: max_connections`) || strings.Contains(sec, "<svg") {
		t.Errorf("with max_connections unread the worst case is not unknown:\n%s", sec)
	}
}

// section is the page from start up to the next h2.
func section(t *testing.T, page, start string) string {
	t.Helper()
	i := strings.Index(page, start)
	if i < 0 {
		t.Fatalf("no %s in the page", start)
	}
	rest := page[i+len(start):]
	if j := strings.Index(rest, "<h2 "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}
