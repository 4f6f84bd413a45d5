package cli

import (
	"cmp"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/bundle"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// fromBundle is the global --from flag: a bundle read instead of the host.
type fromBundle struct {
	path string
	b    *bundle.Bundle
}

// fromCommands read a host's state and can read a bundle instead.
var fromCommands = map[string]bool{"report": true, "check": true, "plan": true, "postmortem": true, "watch": true}

// openFrom opens the --from bundle before a command runs; env.fs() and
// env.live() then read it.
func (e *env) openFrom(cmd *cobra.Command) error {
	if e.from.path == "" || e.from.b != nil {
		return nil
	}
	if !fromCommands[cmd.Name()] {
		return usageError{fmt.Errorf("--from works with report, check, plan, postmortem and watch; %q acts on the live host", cmd.Name())}
	}
	for _, f := range []string{"proc", "sys", "root"} {
		if fl := cmd.Flags().Lookup(f); fl != nil && fl.Changed {
			return usageError{fmt.Errorf("--from and --%s both say where to read: give one", f)}
		}
	}
	b, err := bundle.Open(e.from.path, bundle.DefaultLimits)
	if err != nil {
		return err
	}
	e.from.b = b
	return nil
}

// guardOptions has the snapshot read the OOM guard (the database units'
// OOM settings, systemd-oomd, earlyoom, the OOM sysctls): live, or as the
// --from bundle recorded it. A bundle of an older dbmem carries none: the
// guard is then left out.
func (e *env) guardOptions(so *snapshot.Options) error {
	so.Guard = true
	if e.from.b == nil {
		return nil
	}
	g, err := e.from.b.OOMGuard()
	so.GuardRecorded, so.Guard = g, g != nil
	return err
}

// closeFrom drops the bundle read in memory.
func (e *env) closeFrom() {
	if e.from.b != nil {
		e.from.b.Close()
		e.from.b = nil
	}
}

func newCaptureCmd(e *env) *cobra.Command {
	var o bundle.CaptureOptions
	var out string
	var fast bool
	cmd := &cobra.Command{
		Use:   "capture",
		Short: "Write one compressed bundle of everything dbmem reads, for report/check/postmortem --from elsewhere",
		Long: `capture reads the host as report, check and postmortem do (the /proc and /sys files of the
host and of every database process, the settings read over SQL, the kernel log's OOM reports and
the tail of each database log) and writes them to one .tar.gz. On any machine,
'dbmem report --from FILE', 'dbmem check --from FILE' and 'dbmem postmortem --from FILE' then
give the results they gave here.

Redacted before writing: passwords (command lines, configuration files, logs) always, process
environments are never read, and query texts in the logs unless --with-queries.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			e.captureOptions(&o)
			o.Method, o.Version = fastMethod(fast), version()
			if out == "" {
				out = defaultBundleName(time.Now())
			}
			c, err := bundle.WriteFile(cmd.Context(), out, o)
			if err != nil {
				return err
			}
			if e.json {
				return writeJSON(e.stdout, c.Manifest)
			}
			return writeCaptureSummary(e, out, c.Manifest)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "bundle to write (default dbmem-HOST-TIME.tar.gz in the current directory)")
	f.BoolVar(&o.WithQueries, "with-queries", false, "keep query texts in the database logs (passwords are removed anyway)")
	f.StringSliceVar(&o.KernelLogs, "kernel-log", nil, "kernel log files to include instead of journalctl, dmesg and /var/log/kern.log*")
	f.StringSliceVar(&o.DBLogs, "db-log", nil, "database log files to include instead of those found from the instances")
	f.Int64Var(&o.MaxLogBytes, "max-log-bytes", postmortem.DefaultMaxBytes, "read at most this much from the end of each log file")
	f.BoolVar(&fast, "fast", false, "skip smaps_rollup (Pss), as report --fast")
	return cmd
}

func defaultBundleName(now time.Time) string {
	host, _ := os.Hostname()
	host = cmp.Or(host, "host")
	return fmt.Sprintf("dbmem-%s-%s.tar.gz", host, now.UTC().Format("20060102T150405Z"))
}

func writeCaptureSummary(e *env, out string, m bundle.Manifest) error {
	size := ""
	if st, err := os.Stat(out); err == nil {
		size = " (" + units.Bytes(uint64(st.Size())) + ")"
	}
	fmt.Fprintf(e.stdout, "wrote %s%s: %d files and %d links from /proc, /sys and the host, %d instance(s), kernel %s\n",
		out, size, m.Files, m.Links, len(m.Instances), m.Kernel)
	var read, missing []string
	for _, l := range m.Logs {
		if l.State == postmortem.StateRead {
			read = append(read, inert.Text(l.Source))
		} else {
			missing = append(missing, fmt.Sprintf("%s (%s)", inert.Text(logName(l.Log)), l.State))
		}
	}
	fmt.Fprintf(e.stdout, "logs: %s\n", orNone(read))
	if len(missing) > 0 {
		fmt.Fprintf(e.stdout, "not read: %s (see manifest.json or postmortem --from for why)\n", strings.Join(missing, "; "))
	}
	r := m.Redaction
	fmt.Fprintf(e.stdout, "redacted: %d secret(s) in %d file(s), %d secret(s) and %d query text(s) in logs",
		sumCounts(r.Files.Changed), len(r.Files.Changed), r.Logs.Secrets, r.Logs.Queries)
	if !m.WithQueries {
		fmt.Fprint(e.stdout, " (--with-queries keeps query texts)")
	}
	fmt.Fprintf(e.stdout, "\nread it anywhere with: dbmem report --from %s (also check, plan, watch, postmortem)\n", out)
	return nil
}

func logName(l postmortem.Log) string {
	if l.Instance != "" {
		return l.Source + " [" + l.Instance + "]"
	}
	return l.Source
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
