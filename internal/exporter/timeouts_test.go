package exporter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// serveWith serves h on a free loopback port with the timeouts and returns
// its address; it stops when the test ends.
func serveWith(t *testing.T, h http.Handler, to Timeouts) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeOn(ctx, l, h, ServeOptions{Logger: quiet, Timeouts: to}) }()
	t.Cleanup(func() { cancel(); <-done })
	return l.Addr().String()
}

// closedWithin waits, at most two minutes, for the server to close c: a
// read returns EOF or a reset, not the test's own deadline.
func closedWithin(t *testing.T, c net.Conn, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("%s: the connection was still open after two minutes", what)
	}
}

var hello = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") })

// TestIdleKeepAliveIsClosed: a keep-alive connection that sent one
// request and then nothing is closed after the idle timeout. The server
// used to have none (nor a read timeout, which stands in for it), so an
// idle connection stayed open for good.
func TestIdleKeepAliveIsClosed(t *testing.T) {
	addr := serveWith(t, hello, Timeouts{Idle: time.Second})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("first request: %v %v (want 200, kept alive)", resp, err)
	}
	closedWithin(t, c, "idle keep-alive")
}

// TestSlowHeadersAreCut: a client that sends part of its headers and
// stalls (slowloris), or never finishes a TLS handshake, is cut at the
// header timeout.
func TestSlowHeadersAreCut(t *testing.T) {
	addr := serveWith(t, hello, Timeouts{ReadHeader: time.Second})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	closedWithin(t, c, "half a request's headers")
}

// TestSlowReaderIsCut: a client that asks for a response and never reads
// it holds the handler in a blocked write; the write timeout ends it. The
// server used to have none: the handler (and, for /metrics, one of its two
// request slots) stayed blocked as long as the client liked.
func TestSlowReaderIsCut(t *testing.T) {
	writeErr := make(chan error, 1)
	big := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		chunk := []byte(strings.Repeat("x", 1<<20))
		for i := 0; i < 1024; i++ { // 1 GiB, far above any socket buffer
			if _, err := w.Write(chunk); err != nil {
				writeErr <- err
				return
			}
		}
		writeErr <- nil
	})
	addr := serveWith(t, big, Timeouts{Write: time.Second})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	select {
	case err := <-writeErr:
		if err == nil {
			t.Fatal("the handler wrote 1 GiB to a client that reads nothing")
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the handler was still blocked writing to a client that reads nothing after two minutes")
	}
}

// TestDefaultTimeouts: the write timeout leaves a whole collection (the
// scrape timeout) and a minute to send it; the others are fixed.
func TestDefaultTimeouts(t *testing.T) {
	for scrape, want := range map[time.Duration]Timeouts{
		0:               {ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 90 * time.Second, Idle: 2 * time.Minute},
		2 * time.Minute: {ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: 3 * time.Minute, Idle: 2 * time.Minute},
	} {
		if got := DefaultTimeouts(scrape); got != want {
			t.Errorf("DefaultTimeouts(%s) = %+v, want %+v", scrape, got, want)
		}
	}
	srv := newServer(hello, ServeOptions{Timeouts: Timeouts{Write: time.Hour}})
	if srv.WriteTimeout != time.Hour || srv.IdleTimeout != 2*time.Minute || srv.ReadHeaderTimeout != 10*time.Second ||
		srv.ReadTimeout != 30*time.Second || srv.MaxHeaderBytes != maxHeaderBytes || srv.ConnState == nil {
		t.Errorf("server: %+v", srv)
	}
}
