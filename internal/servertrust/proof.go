package servertrust

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Proof collects what was checked about a local server before connecting:
// who runs it, the socket to dial, the checks that failed (the server is
// not what it claims: do not connect) and those that could not be made.
type Proof struct {
	// PID is the server process found in /proc; Account runs it.
	PID     int
	Account Account
	// Socket is the unix socket to dial; "" when none is known.
	Socket string
	// SocketOwned: the socket file is owned by Account (checked).
	SocketOwned bool
	failed      []string
	unchecked   []string
}

// Fail records a contradiction: the server is not what it claims.
func (p *Proof) Fail(format string, args ...any) {
	p.failed = append(p.failed, fmt.Sprintf(format, args...))
}

// Unchecked records a check that could not be made.
func (p *Proof) Unchecked(format string, args ...any) {
	p.unchecked = append(p.unchecked, fmt.Sprintf(format, args...))
}

// Failed is every contradiction found, joined; "" when none.
func (p *Proof) Failed() string { return strings.Join(p.failed, "; ") }

// UncheckedList is every check that could not be made, joined.
func (p *Proof) UncheckedList() string { return strings.Join(p.unchecked, "; ") }

// Ready reports whether the socket may be dialed: no contradiction, the
// server's account is known and the socket file is its. The listener
// itself is proven at dial time (DialUnix).
func (p *Proof) Ready() bool {
	return len(p.failed) == 0 && p.PID > 0 && p.Socket != "" && p.SocketOwned
}

// Peer is who DialUnix must find listening.
func (p *Proof) Peer() Peer { return Peer{PID: p.PID, UID: p.Account.UID} }

// Begin starts the proof of the server process pid: who runs it. A
// process whose real and effective uids differ is not a server as
// packages run them.
func Begin(fs linux.FS, pid int) *Proof {
	p := &Proof{}
	if !fs.IsLive() {
		p.Fail("not this host's /proc: nothing can be proven")
		return p
	}
	c, err := linux.ReadCreds(fs, pid)
	if err != nil {
		p.Fail("credentials of pid %d: %v", pid, err)
		return p
	}
	if c.UID != c.EUID {
		p.Fail("pid %d runs with real uid %d and effective uid %d", pid, c.UID, c.EUID)
	}
	p.PID, p.Account = pid, AccountOf(c.EUID)
	return p
}

// CheckListening records whether pid holds the listening socket path open
// (its fds against /proc/PID/net/unix): path is the name it bound, or
// reaches the same socket file (a symlinked directory, /proc/PID/root).
// Reading another account's fds needs root: then it is unchecked, and
// DialUnix's SO_PEERCRED decides.
func (p *Proof) CheckListening(fs linux.FS, path string) {
	socks, err := linux.ListeningUnixSockets(fs, p.PID)
	if err != nil {
		p.Unchecked("sockets of pid %d: %v", p.PID, err)
		return
	}
	for _, s := range socks {
		if s == path || sameFile(path, s) || sameFile(path, fs.ProcPath(strconv.Itoa(p.PID), "root", s)) {
			return
		}
	}
	p.Fail("pid %d does not listen on %s", p.PID, path)
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
