// Command rogue is a fake database server run by the tests as another
// account: it names itself postgres or mysqld (its file name and argv[0],
// and PR_SET_NAME), writes the files a real server writes in a directory
// it owns, listens on a unix socket, asks every client for a password
// (PostgreSQL: cleartext or md5 as ROGUE_AUTH says; MySQL:
// caching_sha2_password, then full authentication, which a client answers
// with the password in clear over a unix socket) and records every byte
// it receives in DIR/record.PID and what it saw in DIR/events, each
// tagged with the client's PID.
//
//	postgres -D DIR -p PORT
//	mysqld --datadir=DIR --socket=DIR/mysqld.sock --port=PORT
package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

var (
	mu        sync.Mutex
	dir, auth string
)

func main() {
	name := filepath.Base(os.Args[0])
	if b, err := unix.BytePtrFromString(name); err == nil {
		unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(b)), 0, 0, 0)
	}
	auth = os.Getenv("ROGUE_AUTH")
	var err error
	if name == "mysqld" {
		err = mysqld(os.Args[1:])
	} else {
		err = postgres(os.Args[1:])
	}
	fmt.Fprintln(os.Stderr, "rogue:", err)
	os.Exit(1)
}

func postgres(args []string) error {
	var port string
	for i := 0; i+1 < len(args); i++ {
		switch args[i] {
		case "-D":
			dir = args[i+1]
		case "-p":
			port = args[i+1]
		}
	}
	sock := filepath.Join(dir, ".s.PGSQL."+port)
	pid := fmt.Sprintf("%d\n%s\n%d\n%s\n%s\n*\n  5432001         0\nready   \n", os.Getpid(), dir, time.Now().Unix(), port, dir)
	for f, s := range map[string]string{"postmaster.pid": pid, "PG_VERSION": "15\n", "postgresql.conf": "port = " + port + "\n"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(s), 0o600); err != nil {
			return err
		}
	}
	return serve(sock, pgSession)
}

func mysqld(args []string) error {
	var sock string
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--datadir="); ok {
			dir = v
		}
		if v, ok := strings.CutPrefix(a, "--socket="); ok {
			sock = v
		}
	}
	return serve(sock, mySession)
}

func serve(sock string, session func(*recorder)) error {
	os.Remove(sock)
	l, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	os.Chmod(sock, 0o777)
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			session(newRecorder(c))
		}()
	}
}

// recorder appends every byte read to DIR/record.PID and tags events with
// the client's PID and parent PID (SO_PEERCRED, /proc/PID/stat): on a
// shared machine other programs may connect too.
type recorder struct {
	net.Conn
	pid, ppid int
}

func newRecorder(c net.Conn) *recorder {
	r := &recorder{Conn: c}
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err == nil {
		raw.Control(func(fd uintptr) {
			if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
				r.pid = int(cred.Pid)
			}
		})
	}
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", r.pid)); err == nil {
		if i := strings.LastIndexByte(string(b), ')'); i > 0 {
			f := strings.Fields(string(b)[i+1:])
			if len(f) > 1 {
				fmt.Sscan(f[1], &r.ppid)
			}
		}
	}
	return r
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	if n > 0 {
		appendFile(fmt.Sprintf("record.%d", r.pid), p[:n])
	}
	return n, err
}

// event records one line: "pid=P ppid=Q what".
func (r *recorder) event(format string, args ...any) {
	appendFile("events", []byte(fmt.Sprintf("pid=%d ppid=%d ", r.pid, r.ppid)+fmt.Sprintf(format, args...)+"\n"))
}

func appendFile(name string, b []byte) {
	mu.Lock()
	defer mu.Unlock()
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		f.Write(b)
		f.Close()
	}
}
