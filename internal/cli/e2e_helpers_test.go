package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
)

// built holds the binaries the end-to-end tests run: dbmem itself and the
// rogue server (testdata/rogue) under the names postgres and mysqld, in a
// directory every account may read.
var built struct {
	once sync.Once
	dir  string
	err  error
}

func binaries(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("end-to-end connection tests run as root (they start servers as other accounts)")
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "dbmem-e2e-"); built.err != nil {
			return
		}
		if built.err = os.Chmod(built.dir, 0o755); built.err != nil {
			return
		}
		for _, b := range [][2]string{{"dbmem", "../../cmd/dbmem"}, {"postgres", "./testdata/rogue"}} {
			out, err := exec.Command("go", "build", "-o", filepath.Join(built.dir, b[0]), b[1]).CombinedOutput()
			if err != nil {
				built.err = fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
				return
			}
		}
		built.err = os.Link(filepath.Join(built.dir, "postgres"), filepath.Join(built.dir, "mysqld"))
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.dir
}

// runAs runs dbmem with args and env (nothing else of the test's
// environment), as cred when not nil, and returns its exit code and output.
func runAs(t *testing.T, cred *syscall.Credential, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binaries(t), "dbmem"), args...)
	cmd.Env, cmd.Dir = env, "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Start()
	if err == nil {
		ours.add(cmd.Process.Pid)
		err = cmd.Wait()
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("dbmem %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// ours are the PIDs of the dbmem processes the tests started: on a shared
// machine other programs (another branch's exporter) may connect to a
// rogue too, and only what ours sent counts.
var ours pidSet

type pidSet struct {
	mu   sync.Mutex
	pids map[int]bool
}

func (s *pidSet) add(pid int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pids == nil {
		s.pids = map[int]bool{}
	}
	s.pids[pid] = true
}

func (s *pidSet) has(pid int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pids[pid]
}

// rogue is a fake server run by nobody (testdata/rogue).
type rogue struct {
	name, dir string
	port      int
	cmd       *exec.Cmd
}

func startRogue(t *testing.T, name, auth string) *rogue {
	t.Helper()
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	dir, err := throwaway.Dir("", "dbmem-rogue-", nobody)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	r := &rogue{name: name, dir: dir, port: port}
	args := []string{"-D", dir, "-p", strconv.Itoa(port)}
	if name == "mysqld" {
		args = []string{"--datadir=" + dir, "--socket=" + filepath.Join(dir, "mysqld.sock"), "--port=" + strconv.Itoa(port)}
	}
	r.cmd = exec.Command(filepath.Join(binaries(t), name), args...)
	r.cmd.Args[0] = name
	r.cmd.Env, r.cmd.Dir = []string{"ROGUE_AUTH=" + auth}, "/"
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: nobody}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.cmd.Process.Kill(); r.cmd.Wait() })
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
			return r
		}
		if time.Now().After(end) {
			t.Fatalf("rogue %s in %s never became ready", name, dir)
		}
	}
}

// records is every byte the rogue received, from any client.
func (r *rogue) records() string {
	var all []byte
	names, _ := filepath.Glob(filepath.Join(r.dir, "record.*"))
	for _, n := range names {
		b, _ := os.ReadFile(n)
		all = append(all, b...)
	}
	return string(all)
}

// events are the rogue's event lines caused by dbmem processes the tests
// started (the client or its parent, for the helper), without the tag.
func (r *rogue) events() string {
	b, _ := os.ReadFile(filepath.Join(r.dir, "events"))
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var pid, ppid int
		if _, err := fmt.Sscanf(l, "pid=%d ppid=%d ", &pid, &ppid); err == nil && (ours.has(pid) || ours.has(ppid)) {
			_, rest, _ := strings.Cut(l, " ppid=")
			_, rest, _ = strings.Cut(rest, " ")
			out = append(out, rest)
		}
	}
	return strings.Join(out, "\n")
}
