// Package bouncertest runs a real PgBouncer (Debian's /usr/sbin/pgbouncer)
// for tests: its own pgbouncer.ini in a new directory, a free port, run
// as an OS account of the test's choosing, stopped by its PID at cleanup.
// Debian's own pgbouncer service is never touched.
package bouncertest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
)

// Binary is the PgBouncer scripts/test installs (apt-get install pgbouncer).
const Binary = "/usr/sbin/pgbouncer"

// Options shape one PgBouncer.
type Options struct {
	// User runs it (default "postgres"); it owns Dir.
	User string
	// Databases are [databases] lines ("app = host=/tmp/x port=5432").
	Databases []string
	// Settings are more [pgbouncer] lines ("pool_mode = transaction").
	Settings []string
	// Users are [users] lines.
	Users []string
	// Files are more files written into Dir (an %include, by base name).
	Files map[string]string
	// AuthUsers are listed in its auth_file (auth_type trust still
	// requires the user to be listed); default "postgres".
	AuthUsers []string
	// WorldReadable makes pgbouncer.ini and the other files mode 0644
	// (default 0640: only its account and group read them, as Debian's).
	WorldReadable bool
}

// Bouncer is a running PgBouncer.
type Bouncer struct {
	PID  int
	Dir  string // its directory: pgbouncer.ini, the socket, the log
	Port int
	Ini  string // the path of pgbouncer.ini
	cmd  *exec.Cmd
	Cred *syscall.Credential
}

// Socket is the path of its unix socket.
func (b *Bouncer) Socket() string { return filepath.Join(b.Dir, ".s.PGSQL."+strconv.Itoa(b.Port)) }

// Log returns the end of its log.
func (b *Bouncer) Log() string {
	out, _ := os.ReadFile(filepath.Join(b.Dir, "pgbouncer.log"))
	if len(out) > 4000 {
		out = out[len(out)-4000:]
	}
	return string(out)
}

// Start writes the configuration and starts PgBouncer in the foreground
// (no -d), waiting (at most 2 minutes) for its socket. It is stopped by
// PID when the test ends.
func Start(t testing.TB, o Options) *Bouncer {
	t.Helper()
	if _, err := os.Stat(Binary); err != nil {
		t.Fatalf("%s: %v: install Debian's pgbouncer package (scripts/test does: apt-get install pgbouncer)", Binary, err)
	}
	b := Prepare(t, o)
	b.Run(t)
	return b
}

// Prepare writes the directory and the configuration without starting.
func Prepare(t testing.TB, o Options) *Bouncer {
	t.Helper()
	if o.User == "" {
		o.User = "postgres"
	}
	cred, err := throwaway.Credential(o.User)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := throwaway.Dir("", "dbmem-pgbouncer-", cred)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	b := &Bouncer{Dir: dir, Port: port, Ini: filepath.Join(dir, "pgbouncer.ini"), Cred: cred}
	files := map[string]string{"pgbouncer.ini": b.ini(o), "userlist.txt": userlist(o.AuthUsers)}
	for k, v := range o.Files {
		files[k] = v
	}
	mode := os.FileMode(0o640)
	if o.WorldReadable {
		mode = 0o644
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

func (b *Bouncer) ini(o Options) string {
	var s strings.Builder
	fmt.Fprintf(&s, "[databases]\n%s\n\n", strings.Join(o.Databases, "\n"))
	if len(o.Users) > 0 {
		fmt.Fprintf(&s, "[users]\n%s\n\n", strings.Join(o.Users, "\n"))
	}
	fmt.Fprintf(&s, "[pgbouncer]\nlisten_port = %d\nunix_socket_dir = %s\nauth_type = trust\nauth_file = %s\n"+
		"logfile = %s\npidfile = %s\n", b.Port, b.Dir, filepath.Join(b.Dir, "userlist.txt"),
		filepath.Join(b.Dir, "pgbouncer.log"), filepath.Join(b.Dir, "pgbouncer.pid"))
	s.WriteString(strings.Join(o.Settings, "\n") + "\n")
	return s.String()
}

func userlist(users []string) string {
	if len(users) == 0 {
		users = []string{"postgres"}
	}
	var s strings.Builder
	for _, u := range users {
		fmt.Fprintf(&s, "%q \"\"\n", u)
	}
	return s.String()
}

// Run starts the prepared PgBouncer and waits for its socket.
func (b *Bouncer) Run(t testing.TB) {
	t.Helper()
	cmd := exec.Command(Binary, b.Ini)
	cmd.Dir = b.Dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: b.Cred, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start pgbouncer: %v", err)
	}
	b.cmd, b.PID = cmd, cmd.Process.Pid
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { b.stop(exited) })
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("pgbouncer exited: %v\n%s", err, b.Log())
		default:
		}
		if c, err := net.DialTimeout("unix", b.Socket(), time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pgbouncer did not open %s in 2 minutes\n%s", b.Socket(), b.Log())
}

// stop ends the process this package started, by its PID.
func (b *Bouncer) stop(exited chan error) {
	select {
	case <-exited:
		return
	default:
	}
	b.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-exited:
	case <-time.After(30 * time.Second):
		b.cmd.Process.Kill()
		<-exited
	}
}

// WaitFor polls cond (at most 2 minutes).
func WaitFor(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	last := ""
	for {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not reached in 2 minutes; last: %s", what, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}
