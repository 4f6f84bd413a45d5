package postgres

import (
	"fmt"
	"io/fs"
	"path"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// socketPath is where a postmaster listening in dir on port has its socket.
func socketPath(dir string, port int) string {
	return path.Join(dir, ".s.PGSQL."+strconv.Itoa(port))
}

// proveLocal checks, before connecting, that the postmaster found in
// /proc is a real server and that socketDir/.s.PGSQL.port is its socket:
// the postmaster, its data directory, postmaster.pid and the socket are
// owned by one account, postmaster.pid names this postmaster and data
// directory, and (where /proc/PID/fd can be read) the postmaster holds
// the socket open. The listener itself is checked at dial time.
func proveLocal(fsys linux.FS, in *Instance, socketDir string, port int) *servertrust.Proof {
	p := servertrust.Begin(fsys, in.PostmasterPID)
	if p.PID == 0 {
		return p
	}
	if in.DataDir == "" {
		p.Unchecked("data directory unknown")
	} else {
		p.CheckOwned("data directory", fsys.HostPath(in.DataDir), fs.ModeDir)
		checkPIDFile(fsys, p, in)
	}
	sock := socketPath(socketDir, port)
	p.SocketOwned = p.CheckOwned("socket", sock, fs.ModeSocket)
	p.Socket = sock
	p.CheckListening(fsys, sock)
	return p
}

// checkPIDFile checks postmaster.pid: the postmaster's account owns it
// (not through a link), and what discovery read from it names this
// postmaster and this data directory.
func checkPIDFile(fsys linux.FS, p *servertrust.Proof, in *Instance) {
	if !p.CheckOwned("postmaster.pid", fsys.HostPath(path.Join(in.DataDir, "postmaster.pid")), 0) {
		return
	}
	pf := in.PIDFile
	if pf == nil {
		p.Unchecked("postmaster.pid not read")
		return
	}
	if pf.PID != in.PostmasterPID {
		p.Fail("postmaster.pid holds pid %d, not %d", pf.PID, in.PostmasterPID)
	}
	if pf.DataDir != "" && path.Clean(pf.DataDir) != path.Clean(in.DataDir) {
		p.Fail("postmaster.pid names data directory %q, not %q", pf.DataDir, in.DataDir)
	}
}

// proofSummary describes a proof for the connection line: "server proven:
// postmaster 2205 run by postgres (SO_PEERCRED)" plus what could not be
// checked.
func proofSummary(p *servertrust.Proof) string {
	s := fmt.Sprintf("server proven: postmaster %d run by %s (SO_PEERCRED)", p.PID, p.Account)
	if u := p.UncheckedList(); u != "" {
		s += "; not checked: " + u
	}
	return s
}
