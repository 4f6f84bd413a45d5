package dblog

import (
	"bufio"
	"io"
	"regexp"
	"strconv"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
)

// TempFile is one "temporary file" line (log_temp_files >= 0): a sort, a
// hash or a materialisation that did not fit in work_mem and spilled.
type TempFile struct {
	PID int
	// User is the role the line names (csvlog's user_name, jsonlog's user,
	// a stderr prefix's %u), "" when the line does not say.
	User    string
	Path    string
	Bytes   uint64
	Time    time.Time
	TimeRaw string
}

// TempFiles is what a log says about temporary files.
type TempFiles struct {
	Format string // "stderr", "csv" or "json"
	Files  []TempFile
	Stats  loglines.Stats
	// First and Last are the first and last stamps the log shows (any
	// message): the span it covers.
	First, Last time.Time
}

// maxTempFiles bounds how many lines are kept (the largest are what
// matters; the count and sum go on).
const maxTempFiles = 100000

var tempFileRe = regexp.MustCompile(`^temporary file: path "(.*)", size (\d+)$`)

// ParseTempFiles reads a PostgreSQL server log (stderr with any prefix,
// csvlog or jsonlog) for its temporary file lines. users reads %u from a
// stderr line's prefix (nil: stderr lines name no user). It never panics;
// on a read error it returns what it found with the error.
func (o Options) ParseTempFiles(r io.Reader, users *PrefixMatcher) (TempFiles, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(4096)
	s := &tempSink{users: users, out: TempFiles{Format: PostgresLogFormat(head)}}
	var err error
	switch s.out.Format {
	case "json":
		s.out.Stats, err = readJSON(br, o.Location, s)
	case "csv":
		err = readCSV(br, o.Location, s)
	default:
		s.out.Stats, err = readStderr(br, o.Location, s)
	}
	return s.out, err
}

type tempSink struct {
	users *PrefixMatcher
	out   TempFiles
}

func (s *tempSink) dumpLine(string) {}

func (s *tempSink) entry(e entry) {
	if t := e.st.t; !t.IsZero() {
		if s.out.First.IsZero() {
			s.out.First = t
		}
		s.out.Last = t
	}
	if e.severity != "LOG" {
		return
	}
	m := tempFileRe.FindStringSubmatch(e.message)
	if m == nil || len(s.out.Files) >= maxTempFiles {
		return
	}
	n, err := strconv.ParseUint(m[2], 10, 64)
	if err != nil {
		return
	}
	user := e.user
	if user == "" && e.prefix != "" {
		user = s.users.User(e.prefix)
	}
	s.out.Files = append(s.out.Files, TempFile{PID: e.pid, User: user, Path: m[1], Bytes: n, Time: e.st.t, TimeRaw: e.st.raw})
}
