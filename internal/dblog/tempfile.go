package dblog

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
)

// TempFile is the largest "temporary file" line (log_temp_files >= 0) of
// one user: a sort, a hash or a materialisation that did not fit in
// work_mem and spilled; Count and TotalBytes are all of that user's.
type TempFile struct {
	PID int `json:"pid"`
	// User is the role the line names (csvlog's user_name, jsonlog's user,
	// a stderr prefix's %u), "" when the line does not say.
	User       string    `json:"user"`
	Path       string    `json:"path"`
	Bytes      uint64    `json:"bytes"`
	Time       time.Time `json:"time"`
	TimeRaw    string    `json:"time_raw"`
	Count      int       `json:"count"`
	TotalBytes uint64    `json:"total_bytes"`
}

// TempFiles is what a log says about temporary files.
type TempFiles struct {
	Format string // "stderr", "csv" or "json"
	// Files holds each user's largest temporary file, in the order the
	// users first appear.
	Files []TempFile
	Stats loglines.Stats
	// First and Last are the first and last stamps the log shows (any
	// message): the span it covers.
	First, Last time.Time
}

// tempMarker is the message's start; a line without it is not parsed.
const tempMarker = `temporary file: path "`

// cutTempFile reads `temporary file: path "P", size N`.
func cutTempFile(msg string) (path string, size uint64, ok bool) {
	rest, ok := strings.CutPrefix(msg, tempMarker)
	if !ok {
		return "", 0, false
	}
	j := strings.LastIndex(rest, `", size `)
	if j < 0 {
		return "", 0, false
	}
	n, err := strconv.ParseUint(strings.TrimRight(rest[j+8:], " \r"), 10, 64)
	return rest[:j], n, err == nil
}

// ParseTempFiles reads a PostgreSQL server log (stderr with any prefix,
// csvlog or jsonlog) for its temporary file lines, keeping each user's
// largest. users reads %u from a stderr line's prefix (nil: stderr lines
// name no user). Only lines holding the message are parsed whole: 8 MiB
// of log costs a scan. It never panics; on a read error it returns what it
// found with the error.
func (o Options) ParseTempFiles(r io.Reader, users *PrefixMatcher) (TempFiles, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(4096)
	s := &tempSink{users: users, loc: o.Location, byUser: map[string]int{}}
	s.out.Format = PostgresLogFormat(head)
	var err error
	switch s.out.Format {
	case "json":
		s.out.Stats, err = loglines.Read(br, maxLine, s.jsonLine)
	case "csv":
		err = readCSV(br, o.Location, s)
	default:
		s.out.Stats, err = loglines.Read(br, maxLine, s.stderrLine)
	}
	s.finish()
	return s.out, err
}

type tempSink struct {
	users  *PrefixMatcher
	loc    *time.Location
	out    TempFiles
	byUser map[string]int
	// first and last are raw lines for the span's stamps.
	first, last string
}

func (s *tempSink) dumpLine(string) {}

// entry takes a csvlog record (readCSV).
func (s *tempSink) entry(e entry) {
	if t := e.st.t; !t.IsZero() {
		if s.out.First.IsZero() {
			s.out.First = t
		}
		s.out.Last = t
	}
	if e.severity == "LOG" {
		s.add(e.message, e.user, e.pid, func() stamp { return e.st })
	}
}

// stderrLine parses only the lines that hold the message.
func (s *tempSink) stderrLine(raw string) {
	if s.first == "" && strings.TrimSpace(raw) != "" {
		s.first = raw
	}
	i := strings.Index(raw, tempMarker)
	if i < 0 {
		if raw != "" && raw[0] != '\t' {
			s.last = raw
		}
		return
	}
	s.last = raw
	prefix, ok := strings.CutSuffix(raw[:i], "LOG:  ")
	if !ok {
		return
	}
	s.add(raw[i:], s.users.User(prefix), s.pidOf(prefix), func() stamp {
		st, _ := parseStamp(prefix, s.loc)
		return st
	})
}

// jsonLine decodes only the lines that hold the message.
func (s *tempSink) jsonLine(raw string) {
	if s.first == "" && strings.HasPrefix(raw, "{") {
		s.first = raw
	}
	if !strings.HasPrefix(raw, "{") {
		return
	}
	s.last = raw
	if !strings.Contains(raw, "temporary file") {
		return
	}
	var j jsonRecord
	if json.Unmarshal([]byte(raw), &j) != nil || j.Severity != "LOG" {
		return
	}
	s.add(j.Message, j.User, j.PID, func() stamp {
		st, _ := parseStamp(j.Timestamp, s.loc)
		return st
	})
}

// add counts one message for user; the stamp is parsed only for a new
// largest file.
func (s *tempSink) add(msg, user string, pid int, at func() stamp) {
	path, n, ok := cutTempFile(msg)
	if !ok {
		return
	}
	i, ok := s.byUser[user]
	if !ok {
		i = len(s.out.Files)
		s.byUser[user] = i
		s.out.Files = append(s.out.Files, TempFile{User: user})
	}
	f := &s.out.Files[i]
	f.Count++
	f.TotalBytes += n
	if n > f.Bytes || f.Count == 1 {
		st := at()
		f.PID, f.Path, f.Bytes, f.Time, f.TimeRaw = pid, path, n, st.t, st.raw
	}
}

// finish reads the span from the first and last lines (stderr, json).
func (s *tempSink) finish() {
	if s.out.Format == "csv" {
		return
	}
	s.out.First, s.out.Last = s.lineTime(s.first), s.lineTime(s.last)
}

func (s *tempSink) lineTime(raw string) time.Time {
	if raw == "" {
		return time.Time{}
	}
	if strings.HasPrefix(raw, "{") {
		var j jsonRecord
		if json.Unmarshal([]byte(raw), &j) != nil {
			return time.Time{}
		}
		raw = j.Timestamp
	}
	head := raw[:min(len(raw), maxPrefix)]
	st, _ := parseStamp(head, s.loc)
	return st.t
}

// pidOf is %p: "[1234]" anywhere in the prefix, else the first number
// past the stamp (parsed only then: it is the costly part).
func (s *tempSink) pidOf(prefix string) int {
	if m := bracketPID.FindStringSubmatch(prefix); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	_, n := parseStamp(prefix, s.loc)
	return prefixPID(prefix[n:])
}
