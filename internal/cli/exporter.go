package cli

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/prometheus/common/promslog"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbmem/dbmem/internal/exporter"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
)

func newExporterCmd(e *env) *cobra.Command {
	var so exporter.ServeOptions
	var smaps, readTimeout, scrapeTimeout time.Duration
	var top, maxConns int
	var method string
	memLimit := byteSize(defaultMemoryLimit)
	logc := promslog.Config{Level: promslog.NewLevel(), Format: promslog.NewFormat()}
	cmd := &cobra.Command{
		Use:   "exporter",
		Short: "Serve database-aware memory metrics to Prometheus",
		Long: `exporter serves Prometheus metrics that node_exporter cannot have, because it does
not know which processes make up a database instance: private cost and page tables
per instance and role, the shared segment and the page size it really uses, huge
pages needed against the pool, the page-table projection at max_connections, the
worst case against the limits, the OOM ranking and the diagnose engine's findings.

Each scrape reads constant-time files only; every backend's exact cost (Pss) is
read in the background every --smaps-interval (--method: the exact fast path
where it can, else smaps_rollup). Each database instance is collected on its
own (dbmem_instance_scrape_success): one that fails never fails the scrape.
Logging follows Prometheus's exporters (--log.level, --log.format).

It listens on localhost unless told otherwise; TLS and basic authentication come
from an exporter-toolkit web configuration file (--web.config.file), as for
every Prometheus exporter.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			logc.Writer = e.stderr
			log := promslog.New(&logc)
			m, err := measure.Parse(method)
			if err != nil || m == measure.Status {
				return usageError{fmt.Errorf("--method: %q: want auto, fast or smaps", method)}
			}
			s := e.sampler()
			s.Method = m
			s.FS.Deadlines = readDeadlines(readTimeout, log)
			x := exporter.New(exporter.Options{Sampler: s, Top: top, ScrapeTimeout: scrapeTimeout, Logger: log, Version: version()})
			so.Version, so.Logger = version(), log
			so.Conns, so.Timeouts = exporter.NewConns(maxConns, log), exporter.DefaultTimeouts(scrapeTimeout)
			limitMemory(memLimit, log)
			reg := exporter.Registry(x)
			reg.MustRegister(so.Conns)
			h, err := exporter.Handler(reg, so)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithCancel(cmd.Context())
			defer cancel()
			if smaps > 0 {
				go x.RunSmaps(ctx, smaps, func(err error) { log.Error("smaps_rollup pass failed", "err", err) })
			}
			return exporter.Serve(ctx, h, so)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&so.Listen, "web.listen-address", []string{exporter.DefaultListen}, "addresses to listen on (repeatable)")
	f.StringVar(&so.WebConfig, "web.config.file", "", "exporter-toolkit web configuration file (TLS, basic auth)")
	f.BoolVar(&so.SystemdSocket, "web.systemd-socket", false, "use the sockets systemd passes instead of --web.listen-address")
	f.StringVar(&so.MetricsPath, "web.telemetry-path", "/metrics", "path under which to serve the metrics")
	f.DurationVar(&smaps, "smaps-interval", 5*time.Minute, "how often to read smaps_rollup (Pss) in the background (0: never)")
	f.StringVar(&method, "method", string(measure.Auto), "how the background pass measures Pss_Anon: auto (the exact fast path through /proc/kpagecount, smaps_rollup where it cannot), fast, or smaps (smaps_rollup for every process)")
	f.IntVar(&top, "oom-top", 5, "how many of the host's processes dbmem_process_oom_score lists")
	f.DurationVar(&readTimeout, "read-timeout", defaultReadTimeout, "abandon a read of /proc, /sys or a host file after this long; the process or file is skipped while it hangs (dbmem_read_timeouts_total)")
	f.DurationVar(&scrapeTimeout, "scrape-timeout", 30*time.Second, "serve a scrape without the status collector when it takes longer (dbmem_scrape_collector_timeouts_total)")
	f.IntVar(&maxConns, "web.max-connections", exporter.DefaultMaxConnections, "keep at most this many HTTP connections open; at the cap a new one closes the one longest without a request (dbmem_http_connections_evicted_total)")
	f.Var(&memLimit, "memory-limit", "the Go runtime's soft memory limit (GOMEMLIMIT, when set, wins): the garbage collector works harder near it, so a collection run by hand stays near the size the unit's MemoryMax=256M allows")
	addLogFlags(f, &logc)
	return cmd
}

// addLogFlags adds Prometheus's standard --log.level and --log.format
// (promslog's values and defaults: info, logfmt), as promslog/flag does for
// kingpin.
func addLogFlags(f *pflag.FlagSet, c *promslog.Config) {
	c.Level.Set("info")
	c.Format.Set("logfmt")
	f.Var(logValue{c.Level}, "log.level", "only log messages with the given severity or above: "+strings.Join(promslog.LevelFlagOptions, ", "))
	f.Var(logValue{c.Format}, "log.format", "output format of log messages: "+strings.Join(promslog.FormatFlagOptions, ", "))
}

// logValue makes a promslog Level or Format a pflag.Value.
type logValue struct {
	v interface {
		String() string
		Set(string) error
	}
}

func (l logValue) String() string     { return l.v.String() }
func (l logValue) Set(s string) error { return l.v.Set(s) }
func (l logValue) Type() string       { return "string" }

// defaultReadTimeout is far above any read's normal time (smaps_rollup of
// a process that touched 100 GiB through 4 KiB pages takes about a second)
// and far below forever.
const defaultReadTimeout = 10 * time.Second

// readDeadlines are the exporter's and watch's: each abandoned read is
// logged once.
func readDeadlines(timeout time.Duration, log *slog.Logger) *linux.Deadlines {
	d := linux.NewDeadlines(timeout)
	d.OnStuck = func(path, key string) {
		log.Error("a read did not finish: skipping it while it hangs", "path", path, "skipped", key, "timeout", timeout)
	}
	return d
}
