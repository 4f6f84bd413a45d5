package mysql

import (
	"fmt"
	"io/fs"

	"github.com/dbmem/dbmem/internal/servertrust"
)

// prove checks, before connecting, that the socket is the server's: the
// server process, its data directory and the socket are owned by one
// account and (where /proc/PID/fd can be read) the server holds the
// socket open. The listener itself is checked at dial time (SO_PEERCRED).
func (c Connector) prove(in *Instance, ep endpoint) *servertrust.Proof {
	p := servertrust.Begin(c.FS, in.PID)
	if p.PID == 0 {
		return p
	}
	if in.DataDir == "" {
		p.Unchecked("data directory unknown")
	} else {
		p.CheckOwned("data directory", c.FS.HostPath(in.DataDir), fs.ModeDir)
	}
	p.SocketOwned = p.CheckOwned("socket", ep.addr, fs.ModeSocket)
	p.Socket = ep.addr
	p.CheckListening(c.FS, ep.addr)
	return p
}

// summary describes a proven server for the connection line.
func summary(p *servertrust.Proof) string {
	s := fmt.Sprintf("server proven: pid %d run by %s, by SO_PEERCRED", p.PID, p.Account)
	if u := p.UncheckedList(); u != "" {
		s += "; not checked: " + u
	}
	return s
}
