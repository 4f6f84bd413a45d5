package sampler

import (
	"context"
	"github.com/dbmem/dbmem/internal/measure"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
)

// countTap records which /proc/PID files were read.
type countTap struct {
	mu    sync.Mutex
	files map[int][]string // pid -> file names
}

func (c *countTap) File(path string, _ []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	dir, name := filepath.Split(path)
	if pid, err := strconv.Atoi(filepath.Base(dir)); err == nil {
		c.files[pid] = append(c.files[pid], name)
	}
}
func (c *countTap) Dir(string, []string) {}
func (c *countTap) Link(string, string)  {}
func (c *countTap) reset()               { c.files = map[int][]string{} }

// The cheap reader gives the same processes as linux.ReadProcess.
func TestProcReaderMatchesReadProcess(t *testing.T) {
	fs := capture.TreeFS(filepath.Join("..", "..", "..", "testdata", "fixtures", "pg15-hugepages-off"))
	var r procReader
	procs, gaps, err := r.read(context.Background(), fs)
	if err != nil || len(gaps) > 0 {
		t.Fatalf("read: %v, gaps %v", err, gaps)
	}
	if len(procs) != 16 {
		t.Fatalf("%d processes, want the fixture's 16", len(procs))
	}
	for _, p := range procs {
		want, _, err := linux.ReadProcess(fs, p.PID, measure.Status)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, p); d != "" {
			t.Errorf("pid %d (-ReadProcess +procReader):\n%s", p.PID, d)
		}
	}
}

// On the live host: kernel threads cost one status read, other programs
// three files, and a PostgreSQL process's cmdline is read once in its life.
func TestProcReaderReadsLittle(t *testing.T) {
	tap := &countTap{}
	fs := linux.DefaultFS()
	fs.Tap = tap
	var r procReader
	tap.reset()
	first, _, err := r.read(context.Background(), fs)
	if err != nil {
		t.Fatal(err)
	}
	known := map[ProcKey]bool{}
	for _, p := range first {
		if postgres.IsServerComm(p.Comm) {
			known[keyOf(p)] = true
		}
	}
	tap.reset()
	second, _, err := r.read(context.Background(), fs)
	if err != nil {
		t.Fatal(err)
	}
	user := map[int]linux.Process{}
	for _, p := range second {
		user[p.PID] = p
	}
	for pid, files := range tap.files {
		got := strings.Join(files, ",")
		p, isUser := user[pid]
		switch {
		case !isUser:
			if got != "status" && !strings.HasPrefix(got, "status,") {
				t.Errorf("pid %d (kernel thread or gone): read %s", pid, got)
			}
			if len(files) > 1 && got != "status,oom_score,oom_score_adj" {
				t.Errorf("pid %d: read %s", pid, got)
			}
		case mysql.IsServerComm(p.Comm): // stat for its start time: a restart is a new server
			if got != "status,oom_score,oom_score_adj,stat" {
				t.Errorf("MySQL server %d: read %s, want status, oom_score, oom_score_adj, stat", pid, got)
			}
		case !postgres.IsServerComm(p.Comm):
			if got != "status,oom_score,oom_score_adj" {
				t.Errorf("pid %d %s: read %s, want status, oom_score, oom_score_adj", pid, p.Comm, got)
			}
		case known[keyOf(p)] && strings.Contains(got, "cmdline"):
			t.Errorf("pid %d: cmdline read again (%s) though its title is known", pid, got)
		}
	}
}
