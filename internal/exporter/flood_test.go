package exporter

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// serveEnv makes the test binary an exporter of a recorded host instead
// of running the tests (see serveChild): "NOFILE [WEBCONFIG]".
const serveEnv = "DBMEM_TEST_SERVE"

func TestMain(m *testing.M) {
	if spec := os.Getenv(serveEnv); spec != "" {
		os.Exit(serveChild(spec))
	}
	os.Exit(m.Run())
}

// floodConns is how many idle keep-alive connections the flood opens: the
// number that exhausted the exporter's open files in the review.
const floodConns = 20000

// serverNofile is the exporter's open-file limit during the flood: far
// below floodConns, as on most hosts (this test's machine allows 20,000).
const serverNofile = 4096

// TestFloodKeepsMetricsAnswering: 20,000 keep-alive connections, each of
// which sent a request and then stays idle, opened as fast as the exporter
// accepts them, used to take every file the exporter may open ("too many
// open files"), and scrapes failed until they closed, which they never
// did. With the connection cap, the exporter closes the connections
// longest without a request, stays under its limit and serves the scrape,
// over plain HTTP, TLS, and TLS with basic auth. The exporter runs in a
// child process with a lower open-file limit; this test raises its own to
// hold the connections.
func TestFloodKeepsMetricsAnswering(t *testing.T) {
	n := raiseNofile(t, floodConns)
	for _, tc := range []struct{ name, mode string }{{"http", "http"}, {"tls", "tls"}, {"tls+auth", "tls"}} {
		t.Run(tc.name, func(t *testing.T) {
			webConfig, client := "", &http.Client{}
			var user, pass string
			if tc.mode == "tls" {
				webConfig, client = tlsWebConfig(t, tc.name == "tls+auth")
				if tc.name == "tls+auth" {
					user, pass = "prometheus", "s3cret"
				}
			}
			addr := startServeChild(t, webConfig)
			base := "http://" + addr
			if tc.mode == "tls" {
				base = "https://" + addr
			}
			open, failed := flood(t, addr, tc.mode, n)
			t.Logf("flood: %d connections opened, %d failed", open, failed)
			body := scrapeWithin(t, client, base, user, pass)
			for _, want := range []string{`dbmem_scrape_collector_success{collector="status"} 1`, "dbmem_postgres_connections{", "dbmem_http_connections_max 256"} {
				if !strings.Contains(body, want) {
					t.Errorf("scrape during the flood lacks %q", want)
				}
			}
			if v := metricValue(body, "dbmem_http_connections"); v > 256 {
				t.Errorf("%v connections open, over the cap of 256", v)
			}
			if v := metricValue(body, "dbmem_http_connections_evicted_total"); v < float64(open-256) {
				t.Errorf("%v connections evicted of %d opened: the cap did not hold", v, open)
			}
		})
	}
}

// startServeChild starts this test binary as an exporter of a recorded
// host (serveChild) with serverNofile open files and returns its address;
// it ends with the test.
func startServeChild(t *testing.T, webConfig string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d %s", serveEnv, serverNofile, webConfig))
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe() // closing it ends the child
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			<-done
			t.Errorf("the exporter did not stop within two minutes")
		}
	})
	addr := make(chan string, 1)
	go func() {
		var a string
		fmt.Fscanf(stdout, "listening %s\n", &a)
		addr <- a
		io.Copy(io.Discard, stdout)
	}()
	select {
	case a := <-addr:
		if a == "" {
			t.Fatal("the exporter child did not start")
		}
		return a
	case <-time.After(2 * time.Minute):
		t.Fatal("the exporter child did not listen within two minutes")
	}
	return ""
}

// serveChild serves an exporter of a recorded host (its collection takes
// milliseconds) with the given open-file limit and web configuration,
// with the default connection cap and timeouts, until stdin closes.
func serveChild(spec string) int {
	nofile, webConfig, _ := strings.Cut(spec, " ")
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	if lim.Cur, _ = strconv.ParseUint(nofile, 10, 64); syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		return 1
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	e := New(Options{Sampler: &sampler.Sampler{FS: capture.TreeFS(filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off"))}})
	o := ServeOptions{WebConfig: webConfig, Logger: quiet, Conns: NewConns(0, quiet)}
	reg := Registry(e)
	reg.MustRegister(o.Conns)
	h, err := Handler(reg, o)
	if err != nil {
		return 1
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 1
	}
	fmt.Println("listening", l.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }()
	if ServeOn(ctx, l, h, o) != nil {
		return 1
	}
	return 0
}

// raiseNofile lifts this process's open-file limit to hold n connections
// and a few more files (root may raise the hard limit too) until the test
// ends, and returns how many connections it can hold.
func raiseNofile(t *testing.T, n int) int {
	t.Helper()
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &old); err != nil {
		t.Fatal(err)
	}
	want := uint64(n + 64)
	lim := syscall.Rlimit{Cur: want, Max: max(want, old.Max)}
	if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim) != nil {
		lim = syscall.Rlimit{Cur: old.Max, Max: old.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
			t.Fatal(err)
		}
		n = min(n, int(old.Max)-64)
	}
	t.Cleanup(func() { syscall.Setrlimit(syscall.RLIMIT_NOFILE, &old) })
	if n <= 2*serverNofile {
		t.Fatalf("this process may open only %d files: the flood needs more than %d (raise the hard limit, or run as root)", old.Max, 2*serverNofile+64)
	}
	return n
}

// flood opens n connections to addr, sends one request on each and never
// reads: the exporter answers and keeps each connection alive, idle. It
// stops early after 20 failures in a row (the exporter accepts no more);
// the connections close when the test ends. Every 1,000 connections must
// come within two minutes.
func flood(t *testing.T, addr, mode string, n int) (open, failed int) {
	t.Helper()
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			rawConn(c).Close()
		}
	})
	inRow, lap := 0, time.Now()
	for i := 0; i < n && inRow < 20; i++ {
		c, err := floodOne(addr, mode)
		if err != nil {
			failed, inRow = failed+1, inRow+1
			continue
		}
		conns, inRow = append(conns, c), 0
		if len(conns)%1000 == 0 {
			if time.Since(lap) > 2*time.Minute {
				t.Fatalf("the flood opened 1,000 connections in more than two minutes")
			}
			lap = time.Now()
		}
	}
	return len(conns), failed
}

// floodOne opens one connection and sends a request on it.
func floodOne(addr, mode string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	if mode == "tls" {
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
		tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			c.Close()
			return nil, err
		}
		tc.SetDeadline(time.Time{})
		c = tc
	}
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: flood\r\n\r\n"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// scrapeWithin scrapes /metrics until it answers 200, for at most two
// minutes, and returns the body.
func scrapeWithin(t *testing.T, client *http.Client, base, user, pass string) string {
	t.Helper()
	c := *client
	c.Timeout = 30 * time.Second
	deadline := time.Now().Add(2 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		req, _ := http.NewRequest("GET", base+"/metrics", nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := c.Do(req)
		if err != nil {
			last = err.Error()
			time.Sleep(time.Second)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 {
			return string(b)
		}
		last = resp.Status
		time.Sleep(time.Second)
	}
	t.Fatalf("no scrape answered in two minutes during the flood; last: %s", last)
	return ""
}

// metricValue is the value of the first sample of name (-1: none).
func metricValue(body, name string) float64 {
	for _, l := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return f
			}
		}
	}
	return -1
}
