package exporter

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
	"github.com/dbmem/dbmem/internal/treetest"
)

// syncBuffer is a log shared by the exporter's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestHungReadIsReportedAndSkipped scrapes over real HTTP an exporter whose
// host has a read that never returns. The first scrape is served without
// the status collector after the scrape timeout (a metric and a log line
// say so); once the read's deadline passes the process is skipped, and the
// next scrapes serve everything else, with the abandoned read counted. No
// scrape hangs and none is refused.
func TestHungReadIsReportedAndSkipped(t *testing.T) {
	dir, fifo := treetest.HungHost(t, filepath.Join("..", ".."))
	fs := capture.TreeFS(dir)
	fs.Deadlines = linux.NewDeadlines(time.Second)
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	fs.Deadlines.OnStuck = func(path, key string) { log.Error("a read did not finish", "path", path, "skipped", key) }
	s := &sampler.Sampler{FS: fs, Live: capture.TreeLive{Dir: dir}}
	e := New(Options{Sampler: s, ScrapeTimeout: 300 * time.Millisecond, Logger: log})
	base := serveExporter(t, e, log)
	client := &http.Client{Timeout: time.Minute}
	first := get(t, client, base)
	for _, want := range []string{`dbmem_scrape_collector_success{collector="status"} 0`, `dbmem_scrape_collector_timeouts_total{collector="status"} 1`} {
		if !strings.Contains(first, want) {
			t.Errorf("first scrape lacks %q:\n%s", want, first)
		}
	}
	var body string
	for i := 0; i < 20; i++ {
		if body = get(t, client, base); strings.Contains(body, `dbmem_scrape_collector_success{collector="status"} 1`) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, want := range []string{`dbmem_scrape_collector_success{collector="status"} 1`, "dbmem_read_timeouts_total 1", "dbmem_reads_stuck 1",
		`dbmem_postgres_connections{`} {
		if !strings.Contains(body, want) {
			t.Errorf("a later scrape lacks %q:\n%s", want, body)
		}
	}
	for _, want := range []string{"did not finish within the scrape timeout", "a read did not finish", fifo} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log does not say %q:\n%s", want, logs.String())
		}
	}
}

func serveExporter(t *testing.T, e *Exporter, log *slog.Logger) string {
	t.Helper()
	h, err := Handler(Registry(e), ServeOptions{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeListener(ctx, l, h, "", log) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + l.Addr().String()
}

func get(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: %s\n%s", resp.Status, b)
	}
	return string(b)
}
