package postgres

import (
	"context"
	"fmt"
	"os"
	"path"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/linux"
)

// sameInstance checks, while the connection is open, that the server that
// answered is the instance found in /proc: the backend serving dbmem
// (pg_backend_pid()) is a child of the postmaster, else the server's
// data_directory and port are the instance's. A setting is shown for an
// instance only when it came from that instance.
type sameInstance struct {
	fs         linux.FS
	postmaster int
	dataDir    string
	port       int
}

func (s sameInstance) check(l Live) error {
	st, err := linux.ReadStat(s.fs, l.SessionPID)
	if err == nil && st.PPid == s.postmaster && IsServerComm(st.Comm) {
		return nil
	}
	parent := "unreadable"
	if err == nil {
		parent = fmt.Sprintf("pid %d", st.PPid)
	}
	dd := l.Settings.String("data_directory")
	port, _ := l.Settings.Int("port")
	if dd != "" && s.dataDir != "" && sameDir(s.fs, dd, s.dataDir) && int(port) == s.port {
		return nil
	}
	return fmt.Errorf("the server that answered is not postmaster %d: the backend serving dbmem (pid %d) has parent %s, and data_directory %q port %d do not name %s port %d; its settings are not used",
		s.postmaster, l.SessionPID, parent, dd, port, s.dataDir, s.port)
}

// sameDir reports whether two paths name one directory.
func sameDir(fs linux.FS, a, b string) bool {
	if path.Clean(a) == path.Clean(b) {
		return true
	}
	fa, err1 := os.Stat(fs.HostPath(a))
	fb, err2 := os.Stat(fs.HostPath(b))
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// liveOver connects as d says, reads Live and checks it with check while
// the connection is still open (the backend exits when it closes).
func liveOver(ctx context.Context, d dialSpec, check func(Live) error) (Live, error) {
	cfg, err := pgxConfig(d)
	if err != nil {
		return Live{}, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return Live{}, err
	}
	defer conn.Close(ctx)
	l, err := readLive(ctx, conn)
	if err != nil {
		return Live{}, err
	}
	if err := check(l); err != nil {
		return Live{}, err
	}
	if d.work {
		l.Work = readWork(ctx, conn, l)
	}
	if len(d.stmts) > 0 { // only once the server is proven
		if l.Results, err = runStatements(ctx, conn, d.stmts); err != nil {
			return Live{}, err
		}
	}
	if d.backends != nil {
		if l.Backends, err = readBackends(ctx, conn); err != nil {
			return Live{}, err
		}
	}
	if d.contexts != nil {
		if l.Contexts, err = runContexts(ctx, conn, d.contexts); err != nil {
			return Live{}, err
		}
	}
	return l, nil
}
