package servertrust

import (
	"context"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// Peer is who must be listening on a unix socket: the server's PID (in
// this PID namespace) and the account it runs as.
type Peer struct {
	PID int
	UID uint32
}

// PeerError says that a socket's listener is not the expected process.
type PeerError struct {
	Path     string
	Want     Peer
	GotPID   int
	GotUID   uint32
	Problem  string
	Original error
}

func (e *PeerError) Error() string {
	if e.Problem != "" {
		return fmt.Sprintf("socket %s: %s", e.Path, e.Problem)
	}
	return fmt.Sprintf("socket %s is served by pid %d (uid %d), not by pid %d (uid %d): nothing sent",
		e.Path, e.GotPID, e.GotUID, e.Want.PID, e.Want.UID)
}

func (e *PeerError) Unwrap() error { return e.Original }

// DialUnix connects to the unix socket at path and checks, before
// returning the connection (so before any byte is written), that its
// listener is want: SO_PEERCRED of a connected stream socket holds the
// PID and credentials of the process that called listen().
func DialUnix(ctx context.Context, path string, want Peer) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	cred, err := peerCred(c)
	if err != nil {
		c.Close()
		return nil, &PeerError{Path: path, Want: want, Problem: "cannot read the listener's credentials (SO_PEERCRED): " + err.Error(), Original: err}
	}
	if int(cred.Pid) != want.PID || cred.Uid != want.UID {
		c.Close()
		return nil, &PeerError{Path: path, Want: want, GotPID: int(cred.Pid), GotUID: cred.Uid}
	}
	return c, nil
}

// peerCred reads SO_PEERCRED of a unix socket connection.
func peerCred(c net.Conn) (*unix.Ucred, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, fmt.Errorf("not a unix socket connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return nil, err
	}
	var cred *unix.Ucred
	var serr error
	err = raw.Control(func(fd uintptr) {
		cred, serr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if err != nil {
		return nil, err
	}
	return cred, serr
}
