package exporter

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
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
}

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
	if path == "" {
		path = "/metrics"
	}
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
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return run(ctx, srv, func() error { return web.ListenAndServe(srv, flags, o.logger()) })
}

// ServeListener serves h on an open listener (tests use a free loopback
// port) with the web configuration file, if any, until ctx ends.
func ServeListener(ctx context.Context, l net.Listener, h http.Handler, webConfig string, log *slog.Logger) error {
	no := false
	flags := &web.FlagConfig{WebListenAddresses: &[]string{l.Addr().String()}, WebSystemdSocket: &no, WebConfigFile: &webConfig}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	return run(ctx, srv, func() error { return web.Serve(l, srv, flags, log) })
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
