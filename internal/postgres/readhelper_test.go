package postgres

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/asowner"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// The helper systemd serves to root's services (--read-only) refuses a
// request to run statements: a service that may ask it never gets a
// statement run as the account (the database's superuser). The full
// helper gets past that check (and fails later, on its uid).
func TestReadHelperRefusesStatements(t *testing.T) {
	req := `{"version":1,"request":{"socket":"/x/.s.PGSQL.5432","socket_dir":"/x","port":5432,"postmaster_pid":1,` +
		`"data_dir":"/d","uid":4242,"user":"postgres","database":"postgres","timeout_ms":1000,"statements":["ALTER SYSTEM SET work_mem = '1GB'"]}}`
	var out strings.Builder
	if err := ServeReadHelper(context.Background(), strings.NewReader(req), &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "only reads: 1 statements refused") {
		t.Errorf("read-only helper asked for a statement: %s", out.String())
	}
	out.Reset()
	ServeHelper(context.Background(), strings.NewReader(req), &out)
	if strings.Contains(out.String(), "only reads") || !strings.Contains(out.String(), "asked to serve uid 4242") {
		t.Errorf("full helper: %s", out.String())
	}
}

// Statements (apply's ALTER ROLE and ALTER SYSTEM, run by root by hand)
// never go to the socket's read-only helper; a read does.
func TestStatementsSkipTheHelperSocket(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a helper socket dbmem trusts is root's")
	}
	dir := t.TempDir()
	l, err := net.Listen("unix", filepath.Join(dir, "postgres.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	os.Chmod(filepath.Join(dir, "postgres.sock"), 0o600)
	var asked atomic.Int32
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			asked.Add(1)
			io.Copy(io.Discard, c) // the request, until the asker's end of writing
			c.Write([]byte(`{"version":1,"error":"served by the socket"}` + "\n"))
			c.Close()
		}
	}()
	c := Connector{Helper: &asowner.Runner{Args: []string{HelperCommand}, SocketDir: dir}}
	proof := &servertrust.Proof{PID: 1, Account: servertrust.Account{UID: 4242, Name: "postgres"}, Socket: "/x/.s.PGSQL.5432"}
	d := dialSpec{target: target{host: "/x", port: 5432, proof: proof}, user: "postgres", database: "postgres", timeout: time.Second}
	if _, err := c.viaHelper(context.Background(), &Instance{DataDir: "/d"}, d, 4242); err == nil || !strings.Contains(err.Error(), "served by the socket") || asked.Load() != 1 {
		t.Errorf("a read: %v, socket asked %d times", err, asked.Load())
	}
	d.stmts = []string{"ALTER SYSTEM SET work_mem = '1GB'"}
	_, err = c.viaHelper(context.Background(), &Instance{DataDir: "/d"}, d, 4242)
	if asked.Load() != 1 || err == nil || strings.Contains(err.Error(), "served by the socket") {
		t.Errorf("statements went to the socket (asked %d times): %v", asked.Load(), err)
	}
}
