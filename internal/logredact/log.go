package logredact

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"regexp"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/redact"
)

// PostgresLog redacts a PostgreSQL server log (stderr, csvlog or
// jsonlog, told apart by the first line). Passwords always go; unless
// withQueries, query texts go too: STATEMENT, QUERY and CONTEXT lines,
// "Failed process was running:", "parameters:", logged statements
// (log_statement, log_min_duration_statement, auto_explain plans) with
// their continuation lines, and the idents of memory context dumps.
func PostgresLog(text []byte, withQueries bool) ([]byte, LogCounts) {
	var r LogCounts
	switch dblog.PostgresLogFormat(text) {
	case "json":
		return redactJSONLog(text, withQueries, &r), r
	case "csv":
		return redactCSVLog(text, withQueries, &r), r
	}
	skip := false
	out := redactLines(text, func(l string) (string, bool) { return redactPGLine(l, withQueries, &skip, &r) })
	return out, r
}

var (
	// mysqlQueryRe is the query a crashing mysqld prints.
	mysqlQueryRe = regexp.MustCompile(`^(.*\bQuery(?: \(0x[0-9a-fA-F]+\))?: ).*$`)
)

// MySQLLog redacts a MySQL/MariaDB error log: passwords always, and
// unless withQueries the "Query (0x...): ..." lines of crash reports.
func MySQLLog(text []byte, withQueries bool) ([]byte, LogCounts) {
	var r LogCounts
	out := redactLines(text, func(l string) (string, bool) {
		if !withQueries && mysqlQueryRe.MatchString(l) {
			l = mysqlQueryRe.ReplaceAllString(l, "${1}"+QueryRedacted)
			r.Queries++
		}
		l, n := redact.Secrets(l)
		r.Secrets += n
		return l, true
	})
	return out, r
}

// csvlog columns that hold query text.
const (
	csvMessage       = 13
	csvDetail        = 14
	csvInternalQuery = 16
	csvContext       = 18
	csvQuery         = 19
)

// redactCSVLog redacts csvlog records field by field; records that cannot
// be read are dropped.
func redactCSVLog(text []byte, withQueries bool, r *LogCounts) []byte {
	cr := csv.NewReader(bytes.NewReader(text))
	cr.FieldsPerRecord, cr.LazyQuotes = -1, true
	var out bytes.Buffer
	w := csv.NewWriter(&out)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			r.BadRecord++
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				continue
			}
			break
		}
		redactCSVRecord(rec, withQueries, r)
		w.Write(rec)
	}
	w.Flush()
	return out.Bytes()
}

func redactCSVRecord(rec []string, withQueries bool, r *LogCounts) {
	if !withQueries && len(rec) > csvQuery {
		var n int
		rec[csvMessage], n, _ = redactPGMessage("LOG", rec[csvMessage])
		r.Queries += n
		rec[csvDetail], n, _ = redactPGMessage("DETAIL", rec[csvDetail])
		r.Queries += n
		for _, i := range []int{csvInternalQuery, csvContext, csvQuery} {
			if rec[i] != "" {
				rec[i] = QueryRedacted
				r.Queries++
			}
		}
	}
	for i := range rec {
		var n int
		if withQueries && (i == csvDetail || i == csvContext) {
			rec[i], n = redactParams(rec[i])
			r.Secrets += n
		}
		rec[i], n = redact.Secrets(rec[i])
		r.Secrets += n
	}
}
