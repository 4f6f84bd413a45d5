package exporter

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/treetest"
)

// TestAbandonedCollectionStops: a scrape that times out abandons its
// collection, and the collection stops at its next read. On a recorded
// host whose 16 PostgreSQL processes each have a cmdline that blocks (a
// FIFO), with 500 ms per read and a 1 s scrape timeout, the collection
// used to go on reading every process after the scrape was served
// without it: 16 reads of 500 ms, each left hanging. Now the scrape's
// context reaches the readers: after the timeout no read starts, so at
// most the few begun within the second hang.
func TestAbandonedCollectionStops(t *testing.T) {
	dir, _ := treetest.HungHost(t, filepath.Join("..", ".."))
	fifos := blockAllCmdlines(t, dir)
	fs := capture.TreeFS(dir)
	fs.Deadlines = linux.NewDeadlines(500 * time.Millisecond)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := New(Options{Sampler: &sampler.Sampler{FS: fs, Live: capture.TreeLive{Dir: dir}}, ScrapeTimeout: time.Second, Logger: quiet})
	base := serveExporter(t, e, quiet)
	if body := get(t, &http.Client{Timeout: time.Minute}, base); !strings.Contains(body, `dbmem_scrape_collector_success{collector="status"} 0`) {
		t.Fatalf("the scrape was not served without the collector:\n%s", body)
	}
	waitFlightDone(t, e)
	if n := fs.Deadlines.Timeouts(); n > uint64(len(fifos))/2 {
		t.Errorf("%d of the %d blocking reads were started and abandoned: the collection went on after its scrape gave up", n, len(fifos))
	}
	t.Logf("%d reads abandoned of %d blocking ones", fs.Deadlines.Timeouts(), len(fifos))
}

// blockAllCmdlines makes the cmdline of every process of the recorded host
// a FIFO (cleanup opens each for writing, ending the reads left hanging).
func blockAllCmdlines(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "proc", "[0-9]*", "cmdline"))
	if err != nil || len(paths) < 10 {
		t.Fatalf("cmdlines of the recorded host: %v %v", paths, err)
	}
	for _, p := range paths {
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeNamedPipe != 0 {
			continue // HungHost's
		}
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		})
	}
	return paths
}

// waitFlightDone waits, at most two minutes, until no collection runs.
func waitFlightDone(t *testing.T, e *Exporter) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		e.mu.Lock()
		f := e.flight
		e.mu.Unlock()
		if f == nil {
			return
		}
	}
	t.Fatal("the abandoned collection still ran two minutes later")
}
