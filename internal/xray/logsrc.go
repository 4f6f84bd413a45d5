package xray

import (
	"bufio"
	"bytes"
	"cmp"
	"fmt"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// Source is where a backend's dump is written: a file dbmem can read (Path,
// Format), or Why it cannot be read here and How to get it.
type Source struct {
	// Path is the log file as the server names it (absolute).
	Path string `json:"path,omitempty"`
	// Format is stderr, csvlog or jsonlog.
	Format string `json:"format,omitempty"`
	// Via says how the file was found: "current_logfiles" (the logging
	// collector's) or "the postmaster's stderr".
	Via string `json:"via,omitempty"`
	Why string `json:"why,omitempty"`
	How string `json:"how,omitempty"`
}

// Readable reports whether dbmem can read the dump.
func (s Source) Readable() bool { return s.Path != "" }

// Locate finds where the server writes its log from its settings (as the
// server reports them) and, without the logging collector, the
// postmaster's stderr. Files are read as the server's account.
func Locate(fs linux.FS, in *postgres.Instance, settings map[string]string) Source {
	dests := destinations(settings["log_destination"])
	collector := isOn(settings["logging_collector"])
	files := dests["stderr"] || collector && (dests["csvlog"] || dests["jsonlog"])
	if !files {
		return elsewhere(settings, dests)
	}
	if collector {
		return fromCurrentLogfiles(fs, in, settings, dests)
	}
	return fromStderr(fs, in)
}

func destinations(v string) map[string]bool {
	out := map[string]bool{}
	for _, d := range strings.Split(v, ",") {
		if d = strings.ToLower(strings.TrimSpace(d)); d != "" {
			out[d] = true
		}
	}
	if len(out) == 0 {
		out["stderr"] = true
	}
	return out
}

func isOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true
	}
	return false
}

// elsewhere says where a log that is no file dbmem reads goes.
func elsewhere(settings map[string]string, dests map[string]bool) Source {
	ident := settings["syslog_ident"]
	ident = cmp.Or(ident, "postgres")
	switch {
	case dests["syslog"]:
		return Source{Why: fmt.Sprintf("log_destination = %q: the dump went to syslog (ident %q, facility %s), which dbmem does not read",
			settings["log_destination"], ident, settings["syslog_facility"]),
			How: fmt.Sprintf("journalctl -t %s --since <the time shown>, or grep '%s\\[<pid>\\]' in /var/log/syslog", ident, ident)}
	case dests["eventlog"]:
		return Source{Why: "log_destination = eventlog: the dump went to the Windows event log", How: "the Event Viewer, source " + settings["event_source"]}
	case dests["csvlog"] || dests["jsonlog"]:
		return Source{Why: fmt.Sprintf("log_destination = %q needs logging_collector = on: nothing is written", settings["log_destination"]),
			How: "turn logging_collector on (a restart), or add stderr to log_destination"}
	}
	return Source{Why: fmt.Sprintf("log_destination = %q writes no log dbmem can read", settings["log_destination"])}
}

// maxCurrentLogfiles bounds the read of current_logfiles (three lines).
const maxCurrentLogfiles = 64 << 10

// fromCurrentLogfiles reads the collector's current_logfiles in the data
// directory: "stderr log/postgresql-....log", "csvlog ...", "jsonlog ...".
// jsonlog and csvlog are preferred: every record carries its PID.
func fromCurrentLogfiles(fs linux.FS, in *postgres.Instance, settings map[string]string, dests map[string]bool) Source {
	dataDir := settings["data_directory"]
	dataDir = cmp.Or(dataDir, in.DataDir)
	p := path.Join(dataDir, "current_logfiles")
	b, err := fs.As(in.Account).ReadFile(fs.HostPath(p))
	if err != nil {
		return Source{Why: fmt.Sprintf("logging_collector is on but its current_logfiles cannot be read: %v", err),
			How: "run dbmem as root or as the server's account"}
	}
	if len(b) > maxCurrentLogfiles {
		return Source{Why: fmt.Sprintf("%s is %d bytes: not the collector's three lines", p, len(b))}
	}
	files := parseCurrentLogfiles(b)
	for _, f := range []string{"jsonlog", "csvlog", "stderr"} {
		name, ok := files[f]
		if !ok || !dests[f] {
			continue
		}
		if !path.IsAbs(name) {
			name = path.Join(dataDir, name)
		}
		return Source{Path: path.Clean(name), Format: f, Via: "current_logfiles"}
	}
	return Source{Why: fmt.Sprintf("%s names no stderr, csvlog or jsonlog file", p)}
}

// parseCurrentLogfiles reads "format path" lines.
func parseCurrentLogfiles(b []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name != "" {
			out[f] = name
		}
	}
	return out
}

// fromStderr follows the postmaster's stderr (fd 2), which its backends
// inherit: a file (pg_ctl -l, Debian's pg_ctlcluster), or a pipe or socket
// that another program reads (journald, a container runtime).
func fromStderr(fs linux.FS, in *postgres.Instance) Source {
	link, err := fs.Readlink(fs.ProcPath(fmt.Sprint(in.PostmasterPID), "fd", "2"))
	if err != nil {
		return Source{Why: fmt.Sprintf("logging_collector is off and the postmaster's stderr cannot be read: %v", err),
			How: "run dbmem as root or as the server's account"}
	}
	switch {
	case link == "/dev/null":
		return Source{Why: "logging_collector is off and the server's stderr is /dev/null: the dump is lost",
			How: "turn logging_collector on, or start the server with its stderr in a file"}
	case strings.HasPrefix(link, "socket:"):
		return Source{Why: "logging_collector is off and the server's stderr is a socket: journald (a systemd service) keeps the log",
			How: fmt.Sprintf("journalctl _PID=%d --since <the time shown>", in.PostmasterPID)}
	case strings.HasPrefix(link, "pipe:"):
		return Source{Why: "logging_collector is off and the server's stderr is a pipe: another program (a container runtime, a log shipper) keeps the log",
			How: "docker logs / kubectl logs of the server's container, or the program reading the pipe"}
	case strings.HasSuffix(link, " (deleted)"):
		return Source{Why: fmt.Sprintf("logging_collector is off and the server's stderr file %q was deleted (rotated away without copytruncate): the dump cannot be found by name", link),
			How: "rotate with copytruncate, or turn logging_collector on"}
	case !path.IsAbs(link) || strings.HasPrefix(link, "/dev/"):
		return Source{Why: fmt.Sprintf("logging_collector is off and the server's stderr is %q, not a log file", link)}
	}
	return Source{Path: link, Format: "stderr", Via: "the postmaster's stderr"}
}
