// Package mysqltest starts throwaway MariaDB (or MySQL) servers for tests:
// a private directory, a free TCP port and a private socket, settings in a
// my.cnf the server reads with --defaults-file. The host's own server is
// never touched. The server is stopped by its PID and its directory removed
// when the test ends.
package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
	"github.com/go-sql-driver/mysql"
)

// Server is a running test server.
type Server struct {
	Dir, DataDir, Socket, ConfigFile, LogFile string
	Port                                      int
	// PID is the server's PID (0 when it failed to start).
	PID int
	cmd *exec.Cmd
	// done is closed when the server process has exited and been reaped.
	done chan struct{}
}

// binary returns the server binary: mariadbd, else mysqld.
func binary() (string, error) {
	for _, name := range []string{"mariadbd", "mysqld"} {
		for _, dir := range []string{"/usr/sbin", "/usr/local/sbin", "/usr/bin"} {
			p := filepath.Join(dir, name)
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
		}
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no mariadbd or mysqld found (apt-get install mariadb-server)")
}

// Start creates a data directory with mariadb-install-db and starts the
// server with the given [mysqld] settings ("innodb_buffer_pool_size": "1G").
// It skips the test when not root or when no server is installed.
func Start(t testing.TB, settings map[string]string) *Server {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("starting a test MariaDB needs root (it runs as the mysql user)")
	}
	bin, err := binary()
	if err != nil {
		t.Skip(err)
	}
	s, err := create(t, settings)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.stop(t) })
	err = s.start(bin)
	// The free port may have been taken by another process meanwhile (other
	// tests start servers on this machine): take another.
	for try := 1; err != nil && try < 3 && s.exited() && strings.Contains(s.logTail(), "Address already in use"); try++ {
		if err = s.newPort(settings); err == nil {
			err = s.start(bin)
		}
	}
	if err != nil {
		t.Fatalf("start %s: %v\n%s", bin, err, s.logTail())
	}
	return s
}

// exited reports whether the server started last has exited.
func (s *Server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// newPort moves a server that could not listen to another free port.
func (s *Server) newPort(settings map[string]string) error {
	port, err := throwaway.FreePort()
	if err != nil {
		return err
	}
	s.Port = port
	os.Remove(s.LogFile)
	return os.WriteFile(s.ConfigFile, []byte(s.config(settings)), 0o644)
}

func create(t testing.TB, settings map[string]string) (*Server, error) {
	owner, err := throwaway.Credential("mysql")
	if err != nil {
		return nil, err
	}
	dir, err := throwaway.Dir("", "dbmem-mariadb-", owner)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port, err := throwaway.FreePort()
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir, DataDir: filepath.Join(dir, "data"), Socket: filepath.Join(dir, "mysqld.sock"),
		ConfigFile: filepath.Join(dir, "my.cnf"), LogFile: filepath.Join(dir, "error.log"), Port: port}
	// The bootstrap server gets the paths only: with the test's settings
	// (large_pages) it would take huge pages that its io_uring workers may
	// still hold when the real server starts.
	if err := os.WriteFile(s.ConfigFile, []byte(s.config(nil)), 0o644); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "mariadb-install-db", "--defaults-file="+s.ConfigFile,
		"--user=mysql", "--skip-test-db").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("mariadb-install-db: %v\n%s", err, out)
	}
	return s, os.WriteFile(s.ConfigFile, []byte(s.config(settings)), 0o644)
}

// config renders my.cnf: the directory's paths, then settings sorted.
func (s *Server) config(settings map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[mysqld]\ndatadir=%s\nsocket=%s\nport=%d\nbind-address=127.0.0.1\npid-file=%s\nlog-error=%s\nuser=mysql\n",
		s.DataDir, s.Socket, s.Port, filepath.Join(s.Dir, "mysqld.pid"), s.LogFile)
	keys := make([]string, 0, len(settings))
	for k := range settings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s\n", k, settings[k])
	}
	return b.String()
}

func (s *Server) start(bin string) error {
	s.cmd = exec.Command(bin, "--defaults-file="+s.ConfigFile)
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.PID = s.cmd.Process.Pid
	s.done = make(chan struct{})
	var waitErr error
	go func() { waitErr = s.cmd.Wait(); close(s.done) }()
	for end := time.Now().Add(startWait); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		select {
		case <-s.done:
			return fmt.Errorf("server exited: %v", waitErr)
		default:
		}
		if db, err := s.open(); err == nil {
			err = db.Ping()
			db.Close()
			if err == nil {
				return nil
			}
		}
	}
	return fmt.Errorf("server did not accept connections on %s within %s", s.Socket, startWait)
}

// Stop stops the server now (it is stopped at cleanup otherwise).
func (s *Server) Stop(t testing.TB) { s.stop(t) }

// Waits for the server, generous for a loaded machine: they bound a wait
// that ends as soon as the server is ready (or gone), not a duration.
const (
	startWait = 3 * time.Minute
	stopWait  = 3 * time.Minute
)

// stop sends SIGTERM to the server's PID and waits; SIGKILL after stopWait.
func (s *Server) stop(t testing.TB) {
	if s.done == nil {
		return
	}
	select {
	case <-s.done:
		return
	default:
	}
	syscall.Kill(s.PID, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopWait):
		t.Errorf("mariadbd %d did not stop within %s: killing it", s.PID, stopWait)
		syscall.Kill(s.PID, syscall.SIGKILL)
		<-s.done
	}
}

// DB opens a connection pool as root over the private socket; closed at cleanup.
func (s *Server) DB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := s.open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func (s *Server) open() (*sql.DB, error) {
	c := mysql.NewConfig()
	c.User, c.Net, c.Addr = "root", "unix", s.Socket
	c.Timeout = 5 * time.Second
	return sql.Open("mysql", c.FormatDSN())
}

func (s *Server) logTail() string {
	b, _ := os.ReadFile(s.LogFile)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}
