package postgres

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/linux"
)

// TempLogMaxBytes is how much of the server log the budget reads: its
// last 4 MiB (about 20,000 stderr lines), a bound on what reading it costs
// (at worst, every line a temporary file: 35-55 ms, docs/performance.md).
const TempLogMaxBytes = 4 << 20

// TempLog is what the server log says about temporary files.
type TempLog struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// ReadBytes is what was read (the file's end); Truncated says the file
	// is longer.
	ReadBytes int64            `json:"read_bytes"`
	Truncated bool             `json:"truncated"`
	Files     []dblog.TempFile `json:"files"`
	First     time.Time        `json:"first"`
	Last      time.Time        `json:"last"`
	From      string           `json:"from"` // how the file was found
	Gaps      []WorkGap        `json:"gaps,omitempty"`
}

var debianCluster = regexp.MustCompile(`^/var/lib/postgresql/([^/]+)/([^/]+)/?$`)

// ReadTempLog reads the end of the instance's server log, as its own
// account could (fs.As), for the temporary file lines (log_temp_files >= 0):
// the file pg_current_logfile names, Debian's
// /var/log/postgresql/postgresql-V-C.log, or the regular file the
// postmaster's stderr is (pg_ctl -l FILE). Role names come from csvlog,
// jsonlog or log_line_prefix's %u; a line without one gets the role of
// its backend when that still runs.
func (in *Instance) ReadTempLog(fs linux.FS, max int64) TempLog {
	var t TempLog
	p, from, why := in.logPath(fs)
	if p == "" {
		t.Gaps = append(t.Gaps, WorkGap{What: "server log", Why: why, Fix: "logging_collector = on (the log under the data directory) makes it readable"})
		return t
	}
	t.Path, t.From = p, from
	data, size, err := readEnd(fs.As(in.Account), p, max)
	if err != nil {
		t.Gaps = append(t.Gaps, WorkGap{What: "server log " + p, Why: err.Error(),
			Fix: fmt.Sprintf("dbmem reads it as the server's account (%s): the file must be readable by it", in.Account)})
		return t
	}
	t.ReadBytes, t.Truncated = int64(len(data)), size > int64(len(data))
	o := dblog.Options{Location: in.logZone()}
	var roles []string
	if in.Work != nil {
		roles = in.Work.Roles
	}
	tf, err := o.ParseTempFiles(bytes.NewReader(data), dblog.NewPrefixMatcher(in.Settings.String("log_line_prefix"), roles))
	if err != nil {
		t.Gaps = append(t.Gaps, WorkGap{What: "server log " + p, Why: err.Error()})
	}
	t.Format, t.Files, t.First, t.Last = tf.Format, tf.Files, tf.First, tf.Last
	in.fillUsers(t.Files)
	return t
}

// logPath finds the file the server logs to now.
func (in *Instance) logPath(fs linux.FS) (p, from, why string) {
	if w := in.Work; w != nil {
		for _, f := range []string{"stderr", "csvlog", "jsonlog"} {
			if lf := w.LogFiles[f]; lf != "" {
				if !path.IsAbs(lf) {
					lf = path.Join(in.DataDir, lf)
				}
				return path.Clean(lf), "pg_current_logfile('" + f + "')", ""
			}
		}
	}
	if on, _ := in.Settings.Bool("logging_collector"); !on {
		if m := debianCluster.FindStringSubmatch(in.DataDir); m != nil {
			return fmt.Sprintf("/var/log/postgresql/postgresql-%s-%s.log", m[1], m[2]), "Debian's layout", ""
		}
		if l, err := linux.ReadLink(fs, in.PostmasterPID, "fd/2"); err == nil && path.IsAbs(l) && !strings.HasPrefix(l, "/dev/") && !strings.HasSuffix(l, " (deleted)") {
			return path.Clean(l), "the postmaster's stderr", ""
		}
	}
	return "", "", "where the server logs is unknown (logging_collector off and stderr not a file, or pg_current_logfile not readable)"
}

// readEnd reads at most max bytes from the end of a regular file, from
// the start of a line.
func readEnd(fs linux.FS, p string, max int64) ([]byte, int64, error) {
	f, err := fs.Open(fs.HostPath(p))
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, errors.New("not a regular file")
	}
	off := st.Size() - max
	if off < 0 {
		off = 0
	}
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", p, err)
	}
	if off > 0 {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b, st.Size(), nil
}

func (in *Instance) logZone() *time.Location {
	if z := in.Settings.String("log_timezone"); z != "" {
		if loc, err := time.LoadLocation(z); err == nil {
			return loc
		}
	}
	return time.UTC
}

// fillUsers names the role of a line without one from its backend, when
// that still runs (the file name carries its PID: pgsql_tmpPID.N).
func (in *Instance) fillUsers(files []dblog.TempFile) {
	for i := range files {
		if files[i].User != "" {
			continue
		}
		pid := files[i].PID
		if base := path.Base(files[i].Path); strings.HasPrefix(base, "pgsql_tmp") {
			n, _, _ := strings.Cut(strings.TrimPrefix(base, "pgsql_tmp"), ".")
			if v, err := strconv.Atoi(n); err == nil {
				pid = v
			}
		}
		if p, ok := in.Process(pid); ok && p.Role == RoleClient {
			files[i].User = p.User
		}
	}
}
