package dblog

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/loglines"
)

// csvlog columns (PostgreSQL 9.0+; later versions append more).
const (
	csvTime     = 0
	csvUser     = 1
	csvPID      = 3
	csvSeverity = 11
	csvMessage  = 13
	csvDetail   = 14
	csvHint     = 15
	csvContext  = 18
	csvQuery    = 19
)

// readCSV reads a csvlog file into s.
func readCSV(r io.Reader, loc *time.Location, s sink) error {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord, cr.LazyQuotes = -1, true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			continue // a damaged record: skip it, keep reading
		}
		if err != nil {
			return fmt.Errorf("read csvlog: %w", err)
		}
		if len(rec) <= csvQuery {
			continue
		}
		e := entry{severity: rec[csvSeverity], message: rec[csvMessage], detail: rec[csvDetail],
			hint: rec[csvHint], context: rec[csvContext], query: rec[csvQuery], user: rec[csvUser]}
		e.st, _ = parseStamp(rec[csvTime], loc)
		e.pid, _ = strconv.Atoi(rec[csvPID])
		e.lines = []string{strings.Join(rec, ",")}
		s.entry(e)
	}
}

// jsonRecord holds the jsonlog keys dblog uses (PostgreSQL 15+).
type jsonRecord struct {
	Timestamp string `json:"timestamp"`
	PID       int    `json:"pid"`
	Severity  string `json:"error_severity"`
	Message   string `json:"message"`
	Detail    string `json:"detail"`
	Hint      string `json:"hint"`
	Context   string `json:"context"`
	Statement string `json:"statement"`
	User      string `json:"user"`
}

// readJSON reads a jsonlog file (one object per line) into s; lines that
// are not JSON objects go to the memory context dump reader.
func readJSON(r io.Reader, loc *time.Location, s sink) (loglines.Stats, error) {
	st, err := loglines.Read(r, maxLine, func(raw string) {
		var j jsonRecord
		if !strings.HasPrefix(raw, "{") || json.Unmarshal([]byte(raw), &j) != nil {
			s.dumpLine(raw)
			return
		}
		e := entry{pid: j.PID, severity: j.Severity, message: j.Message, detail: j.Detail,
			hint: j.Hint, context: j.Context, query: j.Statement, lines: []string{raw}, user: j.User}
		e.st, _ = parseStamp(j.Timestamp, loc)
		s.entry(e)
	})
	if err != nil {
		return st, fmt.Errorf("read jsonlog: %w", err)
	}
	return st, nil
}

// PostgresLogFormat guesses a PostgreSQL log's format from the start of
// its text: "json" (jsonlog), "csv" (csvlog) or "stderr", by its first
// non-empty line.
func PostgresLogFormat(head []byte) string {
	switch first := firstLine(head); {
	case strings.HasPrefix(first, "{"):
		return "json"
	case csvStartRe.MatchString(first):
		return "csv"
	}
	return "stderr"
}
