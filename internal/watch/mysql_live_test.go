package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/units"
)

// onlyServer connects to the test's server only: the host's own MariaDB
// (3306) is read from its option files, as an unconnected server.
type onlyServer struct{ pid int }

func (o onlyServer) Live(ctx context.Context, in *mysql.Instance) (mysql.Live, error) {
	if in.PID != o.pid {
		return mysql.Live{}, errors.New("not the test's server")
	}
	return mysql.Connector{FS: linux.DefaultFS()}.Live(ctx, in)
}

// serverOf returns the frame's line for the server with this PID.
func serverOf(t *testing.T, f Frame, pid int) MySQLServer {
	t.Helper()
	for _, m := range f.MySQL {
		if m.PID == pid {
			return m
		}
	}
	t.Fatalf("%s frame (tick %d) has no MySQL server %d: %+v", f.Mode, f.Tick, pid, f.MySQL)
	return MySQLServer{}
}

// rowOf returns the cells of the MYSQL/MARIADB table's row of the server
// with this PID.
func rowOf(t *testing.T, text, pid string) []string {
	t.Helper()
	in := false
	for _, l := range strings.Split(text, "\n") {
		in = in || strings.HasPrefix(l, "MYSQL/MARIADB")
		if f := strings.Fields(l); in && len(f) > 0 && f[0] == pid {
			return f
		}
	}
	t.Fatalf("no MYSQL/MARIADB row for pid %s in:\n%s", pid, text)
	return nil
}

func TestLiveMySQLSection(t *testing.T) {
	srv := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M", "max_connections": "50"})
	ctx := context.Background()
	db := srv.DB(t)
	var pool uint64
	if err := db.QueryRowContext(ctx, "SELECT @@innodb_buffer_pool_size").Scan(&pool); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // two clients that stay connected
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
	}
	s, w := &sampler.Sampler{FS: linux.DefaultFS(), MySQLLive: onlyServer{srv.PID}}, &Watcher{}
	var frames []Frame
	for _, mode := range []sampler.Mode{sampler.Discover, sampler.Smaps} {
		smp, err := s.Sample(ctx, mode)
		if err != nil {
			t.Fatal(err)
		}
		frames = append(frames, w.Frame(smp))
	}
	// A status tick, rebuilt from the last discovery whatever else starts
	// or stops on this machine meanwhile.
	procs, _, err := s.ReadProcesses(ctx, s.FS)
	if err != nil {
		t.Fatal(err)
	}
	base, seen := s.LastBase()
	inSeen := false
	for k := range seen {
		inSeen = inSeen || k.PID == srv.PID && k.Start > 0
	}
	if !inSeen {
		t.Errorf("the discovery's MySQL servers %v lack %d: its stopping would not be noticed", seen, srv.PID)
	}
	snap, err := sampler.Rebuild(s.FS, base, procs, nil, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	frames = append(frames, w.Frame(&sampler.Sample{Mode: sampler.Status, Snapshot: snap, Processes: procs}))

	port := strconv.Itoa(srv.Port)
	for _, f := range frames {
		m := serverOf(t, f, srv.PID)
		if m.Port == nil || *m.Port != srv.Port || m.BufferPoolBytes == nil || *m.BufferPoolBytes != pool ||
			m.MaxConnections == nil || *m.MaxConnections != 50 || m.Flavor != "mariadb" || !m.Connected {
			t.Errorf("%s tick: %+v; want port %d, buffer pool %d (@@innodb_buffer_pool_size), max_connections 50, connected mariadb",
				f.Mode, m, srv.Port, pool)
		}
		// Our two clients; dbmem's own connection is not counted.
		if m.Connections == nil || *m.Connections < 2 || m.Threads == nil || *m.Threads < 3 {
			t.Errorf("%s tick: connections %v, threads %v: want at least our 2 clients", f.Mode, m.Connections, m.Threads)
		}
		if m.BufferPoolPageSizeBytes == nil || *m.BufferPoolPageSizeBytes != uint64(os.Getpagesize()) || *m.BufferPoolHugetlb {
			t.Errorf("%s tick: buffer pool in pages of %v (huge %v), want %d (large_pages is off)", f.Mode,
				m.BufferPoolPageSizeBytes, m.BufferPoolHugetlb, os.Getpagesize())
		}
		if m.PrivateBytes == nil || *m.PrivateBytes == 0 || m.PageTablesBytes == nil || *m.PageTablesBytes == 0 {
			t.Errorf("%s tick: private %v, page tables %v: want both read", f.Mode, m.PrivateBytes, m.PageTablesBytes)
		}
		var text bytes.Buffer
		if err := Render(&text, f, RenderOptions{Checking: true}); err != nil {
			t.Fatal(err)
		}
		// PID PORT DATA-DIR SERVER(2 words) THREADS CONNS MAX BUF-POOL POOL-PAGES ...
		row := rowOf(t, text.String(), strconv.Itoa(srv.PID))
		if len(row) != 15 || row[1] != port || strings.TrimSuffix(row[2], "/") != srv.DataDir || row[3] != "mariadb" || row[7] != "50" ||
			row[8] != units.Short(pool) || row[9] != units.Short(uint64(os.Getpagesize())) {
			t.Errorf("%s tick row %q: want %s, mariadb, max 50, buffer pool %s in pages of %d", f.Mode, row,
				srv.DataDir, units.Short(pool), os.Getpagesize())
		}
		for i, c := range row {
			if c == "0" || c == units.UnknownCell {
				t.Errorf("%s tick row %q: cell %d is %q: every number is read here, none is 0", f.Mode, row, i, c)
			}
		}
	}
	if m := serverOf(t, frames[1], srv.PID); !m.PrivateExact || m.PssAt == nil {
		t.Errorf("smaps tick: private exact %v, Pss at %v", m.PrivateExact, m.PssAt)
	}
	if m := serverOf(t, frames[2], srv.PID); m.PrivateExact || m.PssPrivateBytes == nil {
		t.Errorf("status tick: private exact %v (want an RssAnon estimate), last Pss %v (want the smaps tick's)", m.PrivateExact, m.PssPrivateBytes)
	}
	b, err := json.Marshal(frames[2])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"port":`+port+`,`) || !strings.Contains(string(b), `"buffer_pool_bytes":`+strconv.FormatUint(pool, 10)) {
		t.Errorf("JSON lacks the port or the buffer pool: %s", b)
	}
}

// What if the server's option file cannot be read and there is no SQL
// connection: its port, buffer pool and max_connections are not known, and
// neither the view nor the JSON may show a default (3306 is the host's
// other server here) or a 0.
func TestLiveMySQLUnknownPort(t *testing.T) {
	srv := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M"})
	if err := os.Chmod(srv.ConfigFile, 0); err != nil { // the server read it at start
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(srv.ConfigFile, 0o644) })
	smp, err := (&sampler.Sampler{FS: linux.DefaultFS()}).Sample(context.Background(), sampler.Discover)
	if err != nil {
		t.Fatal(err)
	}
	f := (&Watcher{}).Frame(smp)
	m := serverOf(t, f, srv.PID)
	if m.Port != nil || m.BufferPoolBytes != nil || m.MaxConnections != nil || m.Connections != nil || m.Connected ||
		m.LargePageNeedPages != nil || m.BufferPoolPageSizeBytes != nil {
		t.Errorf("unreadable option file, not connected: %+v; want port, buffer pool, max_connections, connections and large-page need unknown", m)
	}
	if m.Threads == nil || m.PrivateBytes == nil || m.PageTablesBytes == nil {
		t.Errorf("the process's own numbers are read from /proc all the same: %+v", m)
	}
	var text bytes.Buffer
	if err := Render(&text, f, RenderOptions{Checking: true}); err != nil {
		t.Fatal(err)
	}
	// PID ? DATA-DIR mariadb VERSION THREADS ? ? ? ? ? PRIVATE - - VMPTE
	row := rowOf(t, text.String(), strconv.Itoa(srv.PID))
	if len(row) != 15 || row[1] != "?" || row[6] != "?" || row[7] != "?" || row[8] != "?" || row[9] != "?" || row[10] != "?" {
		t.Errorf("row %q: want port, conns, max, buffer pool, its pages and LP need shown as ?\n%s", row, text.String())
	}
	for i, c := range row {
		if c == "0" || c == "3306" {
			t.Errorf("row %q: cell %d is %s", row, i, c)
		}
	}
	if !strings.Contains(text.String(), "pid "+strconv.Itoa(srv.PID)+": not connected") {
		t.Errorf("no line says the server %d was not connected:\n%s", srv.PID, text.String())
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"port"`, `"buffer_pool_bytes"`, `"max_connections"`, `"connections"`} {
		if strings.Contains(string(b), k) {
			t.Errorf("JSON has %s for an unknown value: %s", k, b)
		}
	}
}
