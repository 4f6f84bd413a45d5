package asowner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// DefaultSocketDir is where systemd serves helpers (dbmem-pg-helper.socket
// of the package): ACCOUNT.sock runs the helper as ACCOUNT, one process per
// connection, its request on stdin and its answer on stdout as here. The
// service that asks needs no capability to change its identity.
const DefaultSocketDir = "/run/dbmem-helper"

// socketFor is the helper socket for a, or "" when there is none dbmem
// may trust: only a socket root owns, that only root may connect to, in a
// directory only root may change.
func (r *Runner) socketFor(a Account) (string, error) {
	if r.SocketDir == "" || a.Name == "" {
		return "", nil
	}
	p := filepath.Join(r.SocketDir, a.Name+".sock")
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("helper socket %s: %w", p, err)
	}
	for _, c := range []struct {
		path string
		st   os.FileInfo
		kind os.FileMode
		deny os.FileMode // permission bits no one but root may have
	}{{r.SocketDir, nil, os.ModeDir, 0o022}, {p, st, os.ModeSocket, 0o077}} {
		if c.st == nil {
			if c.st, err = os.Lstat(c.path); err != nil {
				return "", fmt.Errorf("helper socket %s: %w", p, err)
			}
		}
		s, ok := c.st.Sys().(*syscall.Stat_t)
		if !ok || s.Uid != 0 || c.st.Mode().Type() != c.kind || c.st.Mode().Perm()&c.deny != 0 {
			return "", fmt.Errorf("helper socket %s: %s is not root's (mode %s): not used", p, c.path, c.st.Mode())
		}
	}
	return p, nil
}

// dial sends stdin to the helper behind the socket and returns its
// bounded answer: the request, then the end of the writing half, then
// the answer until the helper closes the connection.
func (r *Runner) dial(ctx context.Context, a Account, sock string, stdin []byte, max int64) ([]byte, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, fmt.Errorf("helper socket %s (runs the helper as OS user %s): %w", sock, a.Name, err)
	}
	defer c.Close()
	uc := c.(*net.UnixConn)
	if dl, ok := ctx.Deadline(); ok {
		uc.SetDeadline(dl)
	} else {
		uc.SetDeadline(time.Now().Add(time.Minute))
	}
	stop := context.AfterFunc(ctx, func() { uc.SetDeadline(time.Now()) })
	defer stop()
	if _, err := uc.Write(stdin); err != nil {
		return nil, fmt.Errorf("helper socket %s: send the request: %w", sock, err)
	}
	uc.CloseWrite()
	out, err := readBounded(uc, max)
	if err != nil {
		return nil, fmt.Errorf("helper's answer through %s: %w", sock, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("helper socket %s closed without an answer: the helper did not run as OS user %s (journalctl -u 'dbmem-pg-helper@*' says why)", sock, a.Name)
	}
	return out, nil
}
