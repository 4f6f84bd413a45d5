package lab

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/pgcluster"
)

// bench is a pgbench run in the background that reports every second.
type bench struct {
	cmd     *exec.Cmd
	mu      sync.Mutex
	samples []TPSSample
	aborted map[int]bool
	errs    []string
	out     bytes.Buffer
	done    chan struct{}
	err     error
}

// startBench starts pgbench's built-in TPC-B-like script with clients
// clients for seconds seconds, reporting every second with a timestamp.
func startBench(ctx context.Context, c *pgcluster.Cluster, cred *syscall.Credential, clients int, seconds int) (*bench, error) {
	return startBenchAs(ctx, c, cred, "postgres", clients, seconds)
}

// startBenchAs is startBench as role user, with more of pgbench's options
// (a script: -S for select-only).
func startBenchAs(ctx context.Context, c *pgcluster.Cluster, cred *syscall.Credential, user string, clients, seconds int, extra ...string) (*bench, error) {
	args := append([]string{"-n", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)), "-T", strconv.Itoa(seconds),
		"-P", "1", "--progress-timestamp"}, extra...)
	args = append(args, "-h", c.SocketDir, "-p", strconv.Itoa(c.Port), "-U", user, "postgres")
	if err := pgcluster.CheckBin(c.Bin, "pgbench"); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(c.Bin, "pgbench"), args...)
	cmd.Dir, cmd.Env = c.Dir, pgcluster.Env()
	if cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	}
	b := &bench{cmd: cmd, aborted: map[int]bool{}, done: make(chan struct{})}
	cmd.Stdout = &b.out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start pgbench: %w", err)
	}
	go b.read(stderr)
	return b, nil
}

// read takes pgbench's reports and errors as they come.
func (b *bench) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		b.mu.Lock()
		if s, ok := parseProgress(line); ok {
			b.samples = append(b.samples, s)
		} else if n, ok := abortedClient(line); ok {
			b.aborted[n] = true
		} else if len(b.errs) < 20 && line != "" {
			b.errs = append(b.errs, inert.Text(line))
		}
		b.mu.Unlock()
	}
	b.err = b.cmd.Wait()
	close(b.done)
}

// Samples returns the reports so far.
func (b *bench) Samples() []TPSSample {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]TPSSample(nil), b.samples...)
}

// Aborted counts the clients pgbench said aborted.
func (b *bench) Aborted() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.aborted)
}

// waitSamples waits until pgbench has reported n times (or ended).
func (b *bench) waitSamples(ctx context.Context, n int, limit time.Duration) error {
	end := time.Now().Add(limit)
	for len(b.Samples()) < n {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-b.done:
			return fmt.Errorf("pgbench ended after %d reports: %v %s", len(b.Samples()), b.err, b.errText())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(end) {
			return fmt.Errorf("pgbench reported %d times in %s, want %d: %s", len(b.Samples()), limit, n, b.errText())
		}
	}
	return nil
}

// wait waits for pgbench to end on its own, at most limit.
func (b *bench) wait(limit time.Duration) bool {
	select {
	case <-b.done:
		return true
	case <-time.After(limit):
		return false
	}
}

// stop ends pgbench (SIGINT, then SIGKILL) and waits for it.
func (b *bench) stop() {
	if b.wait(0) {
		return
	}
	b.cmd.Process.Signal(syscall.SIGINT)
	if !b.wait(5 * time.Second) {
		b.cmd.Process.Kill()
		<-b.done
	}
}

func (b *bench) errText() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.errs) == 0 {
		return ""
	}
	return b.errs[len(b.errs)-1]
}
