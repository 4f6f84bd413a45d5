package exporter

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxConnections is how many connections the exporter keeps open
// unless told otherwise: a Prometheus server keeps one per target, so a
// few HA pairs and a person with curl use a handful.
const DefaultMaxConnections = 256

// Metrics of the HTTP connections.
var (
	descConns        = desc("http_connections", "HTTP connections open to the exporter now (at most --web.max-connections).")
	descConnsMax     = desc("http_connections_max", "The most HTTP connections the exporter keeps open (--web.max-connections, at most a quarter of its open-file limit).")
	descConnsEvicted = desc("http_connections_evicted_total", "Connections closed to make room for a new one at the cap: the one that waited longest without a request in progress (or the new one, when every connection was in a request).")
)

// Conns caps the server's open connections (http.Server.ConnState). At the
// cap, a new connection makes room by closing the connection that has gone
// longest without a request in progress: one that never sent a request,
// or an idle keep-alive. A flood of idle connections therefore never
// fills the exporter's open files, and a scrape that comes during it is
// served: its connection is the newest, and once its request has started
// it is never the one closed. When every connection is in a request, the
// new one is closed instead. Conns is a prometheus.Collector of its counts.
type Conns struct {
	max int
	log *slog.Logger

	mu      sync.Mutex
	open    map[net.Conn]*connState
	evicted uint64
	logged  time.Time
}

// connState is one connection's state: in a request or not, since when.
type connState struct {
	busy  bool
	since time.Time
}

// NewConns returns a cap of limit connections (DefaultMaxConnections when
// limit <= 0), lowered to a quarter of the open-file limit so that the
// connections never take the files the collection needs.
func NewConns(limit int, log *slog.Logger) *Conns {
	if limit <= 0 {
		limit = DefaultMaxConnections
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur/4 < uint64(limit) {
		low := int(max(lim.Cur/4, 1))
		log.Warn("the open-file limit is low: fewer connections are kept open", "max_connections", low, "asked", limit, "nofile", lim.Cur)
		limit = low
	}
	return &Conns{max: limit, log: log, open: map[net.Conn]*connState{}}
}

// Max is the cap.
func (c *Conns) Max() int { return c.max }

// track is the server's ConnState hook. It runs on the accept loop for a
// new connection, so it never blocks: a connection is closed at the
// socket (a TLS connection without its close_notify alert, which could
// wait for the peer).
func (c *Conns) track(conn net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	switch s {
	case http.StateNew:
		c.open[conn] = &connState{since: now}
		if len(c.open) > c.max {
			c.evict(now)
		}
	case http.StateActive:
		if st, ok := c.open[conn]; ok {
			st.busy = true
		}
	case http.StateIdle:
		if st, ok := c.open[conn]; ok {
			st.busy, st.since = false, now
		}
	case http.StateHijacked, http.StateClosed:
		delete(c.open, conn)
	}
}

// evict closes the connection that has waited longest without a request
// in progress (the new one last of all, being the newest).
func (c *Conns) evict(now time.Time) {
	var victim net.Conn
	var oldest time.Time
	for conn, st := range c.open {
		if !st.busy && (victim == nil || st.since.Before(oldest)) {
			victim, oldest = conn, st.since
		}
	}
	if victim == nil {
		return // every connection is in a request; the server's timeouts end them
	}
	delete(c.open, victim)
	rawConn(victim).Close()
	c.evicted++
	if now.Sub(c.logged) >= time.Minute {
		c.logged = now
		c.log.Warn("too many HTTP connections: closing the ones longest without a request", "max_connections", c.max, "evicted_total", c.evicted)
	}
}

// rawConn is the socket under a TLS connection.
func rawConn(conn net.Conn) net.Conn {
	if t, ok := conn.(*tls.Conn); ok {
		return t.NetConn()
	}
	return conn
}

// Describe sends the connection metrics' descriptions.
func (c *Conns) Describe(ch chan<- *prometheus.Desc) {
	ch <- descConns
	ch <- descConnsMax
	ch <- descConnsEvicted
}

// Collect sends the connection counts.
func (c *Conns) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	open, evicted := len(c.open), c.evicted
	c.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(descConns, prometheus.GaugeValue, float64(open))
	ch <- prometheus.MustNewConstMetric(descConnsMax, prometheus.GaugeValue, float64(c.max))
	ch <- prometheus.MustNewConstMetric(descConnsEvicted, prometheus.CounterValue, float64(evicted))
}
