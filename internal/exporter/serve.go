package exporter

import (
	"cmp"
	"context"
	"errors"
	"log"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/exporter-toolkit/web"
)

// DefaultListen is where the exporter listens unless told otherwise: the
// loopback interface only. (9815 is not in Prometheus's registry of
// exporter ports; choose another with --web.listen-address if it is taken.)
const DefaultListen = "127.0.0.1:9815"

// ServeOptions say where and how to serve.
type ServeOptions struct {
	// Listen addresses (default DefaultListen).
	Listen []string
	// WebConfig is an exporter-toolkit web configuration file (TLS, basic
	// auth); "" serves plain HTTP.
	WebConfig string
	// SystemdSocket uses the sockets systemd passes (socket activation).
	SystemdSocket bool
	// MetricsPath is where metrics are served (default /metrics).
	MetricsPath string
	// Version is shown on the landing page.
	Version string
	Logger  *slog.Logger
	// Conns caps the open connections (nil: NewConns(0), the default cap).
	Conns *Conns
	// Timeouts of the connections (zero fields: DefaultTimeouts).
	Timeouts Timeouts
}

// Timeouts bound what a connection may hold: each is how long the server
// waits for a client before closing its connection.
type Timeouts struct {
	// ReadHeader: from the connection's start, or from the end of its
	// previous response, to the end of a request's headers (TLS handshake
	// included).
	ReadHeader time.Duration
	// Read: to the end of a whole request.
	Read time.Duration
	// Write: from the end of a request's headers to the end of its
	// response; above the longest collection (--scrape-timeout) plus the
	// time to send the metrics.
	Write time.Duration
	// Idle: a keep-alive connection waiting for its next request.
	Idle time.Duration
}

// DefaultTimeouts are the connections' timeouts for a scrape timeout: a
// request's headers in 10 s, its response within the scrape timeout plus
// a minute, and a keep-alive connection kept two minutes (so a scrape
// interval up to 2m reuses its connection).
func DefaultTimeouts(scrape time.Duration) Timeouts {
	if scrape <= 0 {
		scrape = 30 * time.Second
	}
	return Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: scrape + time.Minute, Idle: 2 * time.Minute}
}

// maxHeaderBytes bounds a request's headers: Prometheus's, with basic auth,
// take well under 1 KiB (the standard library's default is 1 MiB, per
// connection).
const maxHeaderBytes = 16 << 10

// Registry returns a registry with the exporter and the Go runtime and
// process collectors (the exporter's own CPU and memory).
func Registry(e *Exporter) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves the metrics of reg at o.MetricsPath and a landing page
// at /.
func Handler(reg *prometheus.Registry, o ServeOptions) (http.Handler, error) {
	path := o.MetricsPath
	path = cmp.Or(path, "/metrics")
	mux := http.NewServeMux()
	mux.Handle(path, promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(o.logger().Handler(), slog.LevelError), Registry: reg,
		MaxRequestsInFlight: 2, Timeout: time.Minute,
		// A metric that cannot be made is logged and left out: the rest
		// of the scrape is served.
		ErrorHandling: promhttp.ContinueOnError,
	}))
	if path != "/" {
		land, err := web.NewLandingPage(web.LandingConfig{
			Name: "dbmem exporter", Description: "Database-aware memory metrics", Version: o.Version,
			Links: []web.LandingLinks{{Address: path, Text: "Metrics"}},
		})
		if err != nil {
			return nil, err
		}
		mux.Handle("/", land)
	}
	return mux, nil
}

func (o ServeOptions) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.Default()
}

// Serve listens on o.Listen (or the systemd sockets) with the web
// configuration and serves h until ctx ends.
func Serve(ctx context.Context, h http.Handler, o ServeOptions) error {
	listen := o.Listen
	if len(listen) == 0 {
		listen = []string{DefaultListen}
	}
	flags := &web.FlagConfig{WebListenAddresses: &listen, WebSystemdSocket: &o.SystemdSocket, WebConfigFile: &o.WebConfig}
	srv := newServer(h, o)
	return run(ctx, srv, func() error { return web.ListenAndServe(srv, flags, o.logger()) })
}

// newServer is the HTTP server of h: every connection has timeouts, its
// headers a bound, and the open connections a cap. Its own errors (a
// failed accept, a TLS handshake) go to the log.
func newServer(h http.Handler, o ServeOptions) *http.Server {
	t, d := o.Timeouts, DefaultTimeouts(0)
	for _, f := range []struct{ v, dflt *time.Duration }{{&t.ReadHeader, &d.ReadHeader}, {&t.Read, &d.Read}, {&t.Write, &d.Write}, {&t.Idle, &d.Idle}} {
		if *f.v <= 0 {
			*f.v = *f.dflt
		}
	}
	conns := o.Conns
	if conns == nil {
		conns = NewConns(0, o.logger())
	}
	return &http.Server{
		Handler: h, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read, WriteTimeout: t.Write, IdleTimeout: t.Idle,
		MaxHeaderBytes: maxHeaderBytes, ConnState: conns.track, ErrorLog: serverLog(o.logger()),
	}
}

// serverLog is the server's own error log (failed accepts, TLS handshakes
// a client broke off) at most 10 lines a minute: a flood of connections
// does not flood the journal.
func serverLog(l *slog.Logger) *log.Logger {
	return log.New(&rateLimited{log: l, per: time.Minute, burst: 10}, "", 0)
}

// rateLimited writes at most burst lines per period to log, then says how
// many it left out.
type rateLimited struct {
	log        *slog.Logger
	per        time.Duration
	burst      int
	mu         sync.Mutex
	start      time.Time
	n, dropped int
}

func (r *rateLimited) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if now := time.Now(); now.Sub(r.start) >= r.per {
		if r.dropped > 0 {
			r.log.Warn("HTTP server messages left out", "count", r.dropped, "per", r.per)
		}
		r.start, r.n, r.dropped = now, 0, 0
	}
	if r.n++; r.n > r.burst {
		r.dropped++
		return len(p), nil
	}
	r.log.Warn("HTTP server error", "err", strings.TrimSpace(string(p)))
	return len(p), nil
}

// run serves until ctx ends, then shuts the server down.
func run(ctx context.Context, srv *http.Server, serve func() error) error {
	errc := make(chan error, 1)
	go func() { errc <- serve() }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	// A signal ends the exporter within about a second: a scrape still
	// waiting for a collection is cut.
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
