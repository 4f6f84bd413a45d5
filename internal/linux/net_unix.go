package linux

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
)

// UnixSocket is one line of /proc/PID/net/unix.
type UnixSocket struct {
	Inode     uint64
	Listening bool   // __SO_ACCEPTCON: a server socket
	Path      string // "" for unnamed sockets; "@name" for abstract ones
}

// soAcceptCon is __SO_ACCEPTCON in the Flags column.
const soAcceptCon = 1 << 16

// parseNetUnix parses /proc/net/unix. Lines that do not parse are skipped.
func parseNetUnix(r io.Reader) []UnixSocket {
	var out []UnixSocket
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 7 || f[0] == "Num" {
			continue
		}
		flags, err1 := strconv.ParseUint(f[3], 16, 32)
		inode, err2 := strconv.ParseUint(f[6], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		s := UnixSocket{Inode: inode, Listening: flags&soAcceptCon != 0}
		if len(f) >= 8 {
			s.Path = strings.Join(f[7:], " ")
		}
		out = append(out, s)
	}
	return out
}

// ListeningUnixSockets returns the paths of the unix sockets pid listens
// on: the sockets among its file descriptors (socket:[inode]) that its
// network namespace lists as listening with a path. Reading another user's
// fds needs root.
func ListeningUnixSockets(fs FS, pid int) ([]string, error) {
	b, err := readProcFile(fs, pid, "net/unix")
	if err != nil {
		return nil, err
	}
	mine, err := socketInodes(fs, pid)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, s := range parseNetUnix(bytes.NewReader(b)) {
		if s.Listening && s.Path != "" && !strings.HasPrefix(s.Path, "@") && mine[s.Inode] {
			out = append(out, s.Path)
		}
	}
	return out, nil
}

// socketInodes reads the socket inodes of pid's file descriptors.
func socketInodes(fs FS, pid int) (map[uint64]bool, error) {
	dir := fs.ProcPath(strconv.Itoa(pid), "fd")
	names, err := fs.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[uint64]bool{}
	for _, n := range names {
		target, err := fs.Readlink(dir + "/" + n)
		if err != nil {
			continue // closed meanwhile
		}
		if s, ok := strings.CutPrefix(target, "socket:["); ok {
			if v, err := strconv.ParseUint(strings.TrimSuffix(s, "]"), 10, 64); err == nil {
				out[v] = true
			}
		}
	}
	return out, nil
}
