package snapshot_test

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/mysql/mysqltest"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// onlyServer connects to the test's MariaDB and to no other server.
type onlyServer struct{ pid int }

func (o onlyServer) Live(ctx context.Context, in *mysql.Instance) (mysql.Live, error) {
	if in.PID != o.pid {
		return mysql.Live{}, errors.New("not the test's server")
	}
	return mysql.Connector{FS: linux.DefaultFS()}.Live(ctx, in)
}

// A snapshot of the live host holds a MariaDB the test started (connected
// over its socket), the SysV segments, and the reader's environment.
func TestTakeMySQLAndSysV(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	srv := mysqltest.Start(t, map[string]string{"innodb_buffer_pool_size": "256M", "max_connections": "50"})
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
	if in == nil {
		t.Fatalf("test server %d not in the snapshot (gaps %v)", srv.PID, s.Gaps)
	}
	if n, _ := in.Settings.Int("max_connections"); !in.Connected || n != 50 || in.Memory.BufferPool == nil || in.Cgroup == nil {
		t.Errorf("instance: connected %v (%s), max_connections %d, pool %+v, cgroup %+v", in.Connected, in.Connection, n, in.Memory.BufferPool, in.Cgroup)
	}
	if s.SysV == nil || s.SysV.Kernel.ShmMni == 0 {
		t.Errorf("SysV = %+v", s.SysV)
	}
	if cg, ok := s.CgroupOf(srv.PID); !ok || cg.PID != srv.PID {
		t.Errorf("CgroupOf(%d) = %+v, %v", srv.PID, cg, ok)
	}
	if s.Environment.RootFSType == "" {
		t.Errorf("environment = %+v", s.Environment)
	}
}
