package logredact

import (
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/redact"
)

// QueryRedacted replaces query texts in captured logs.
const QueryRedacted = "<query text redacted: capture with --with-queries>"

// LogCounts counts what was replaced in a log.
type LogCounts struct {
	Queries   int `json:"queries"`
	Secrets   int `json:"secrets"`
	Dropped   int `json:"continuation_lines_dropped"`
	BadRecord int `json:"unreadable_records_dropped,omitempty"`
}

func (a *LogCounts) Add(b LogCounts) {
	a.Queries += b.Queries
	a.Secrets += b.Secrets
	a.Dropped += b.Dropped
	a.BadRecord += b.BadRecord
}

var (
	// pgSeverityRe finds "prefix SEVERITY:  text" in a stderr log line.
	pgSeverityRe = regexp.MustCompile(`^(.{0,512}?\b)(LOG|ERROR|FATAL|PANIC|WARNING|NOTICE|INFO|DEBUG[1-5]?|DETAIL|HINT|STATEMENT|CONTEXT|QUERY|LOCATION):  `)
	// pgStatementLogRe is a message that logs a query (log_statement,
	// log_min_duration_statement, auto_explain): the part kept.
	pgStatementLogRe = regexp.MustCompile(`^((?:duration: [\d.]+ ms\s+)?(?:statement|execute [^:]*|bind [^:]*|parse [^:]*|plan|fastpath function call)):`)
)

// redactPGMessage redacts the text of one PostgreSQL message by severity;
// more is true when its continuation lines are query text too.
func redactPGMessage(sev, text string) (out string, n int, more bool) {
	switch sev {
	case "STATEMENT", "QUERY", "CONTEXT":
		return QueryRedacted, 1, true
	case "DETAIL":
		for _, p := range []string{"Failed process was running: ", "parameters: ", "Process holding the lock: "} {
			if strings.HasPrefix(text, p) {
				return p + QueryRedacted, 1, true
			}
		}
		return text, 0, false
	}
	if m := pgStatementLogRe.FindStringSubmatch(text); m != nil {
		return m[1] + ": " + QueryRedacted, 1, true
	}
	if sev == "LOG" {
		// pg_log_backend_memory_contexts: one context per message; its
		// ident can be the start of a query.
		if out, ok := dblog.StripContextIdent(text); ok {
			return out, 1, false
		}
	}
	return text, 0, false
}

// redactPGLine redacts one line of a stderr log.
func redactPGLine(line string, withQueries bool, skip *bool, r *LogCounts) (string, bool) {
	if strings.HasPrefix(line, "\t") && *skip {
		r.Dropped++
		return "", false
	}
	*skip = false
	if withQueries {
		if m := pgSeverityRe.FindStringSubmatchIndex(line); m != nil {
			out, n := redactParams(line[m[1]:])
			line, *skip = line[:m[1]]+out, n > 0
			r.Secrets += n
		}
	} else {
		switch m := pgSeverityRe.FindStringSubmatchIndex(line); {
		case m != nil:
			sev, text := line[m[4]:m[5]], line[m[1]:]
			out, n, more := redactPGMessage(sev, text)
			line, *skip = line[:m[1]]+out, more
			r.Queries += n
		case isDumpIdent(line):
			line, _ = dblog.StripContextIdent(line)
			r.Queries++
		case strings.Contains(line, "Query Text: "):
			line = line[:strings.Index(line, "Query Text: ")] + "Query Text: " + QueryRedacted
			r.Queries, *skip = r.Queries+1, true
		}
	}
	line, k := redact.Secrets(line)
	r.Secrets += k
	return line, true
}

// isDumpIdent reports whether line is a memory context dump line with an
// ident (which can be the start of a query), as written to stderr with an
// out-of-memory error.
func isDumpIdent(line string) bool {
	_, ok := dblog.StripContextIdent(line)
	return ok
}

// ParamsRedacted replaces bind parameters, even with --with-queries: they
// are the values a query was run with (passwords, personal data).
const ParamsRedacted = "<bind parameters redacted: dbmem never keeps them>"

// redactParams redacts the bind parameters of a message: "parameters: $1
// = '...'" (DETAIL of a logged statement) and "... with parameters: ..."
// (CONTEXT of an error in an extended-protocol query).
func redactParams(text string) (string, int) {
	if strings.HasPrefix(text, "parameters: ") {
		if text[len("parameters: "):] == ParamsRedacted {
			return text, 0
		}
		return "parameters: " + ParamsRedacted, 1
	}
	const with = " with parameters: "
	if i := strings.Index(text, with); i >= 0 && text[i+len(with):] != ParamsRedacted {
		return text[:i+len(with)] + ParamsRedacted, 1
	}
	return text, 0
}

// redactLines applies fn to each line of text.
func redactLines(text []byte, fn func(line string) (string, bool)) []byte {
	var b strings.Builder
	b.Grow(len(text))
	lines := strings.SplitAfter(string(text), "\n")
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		if out, keep := fn(body); keep {
			b.WriteString(out)
			if len(body) < len(l) {
				b.WriteByte('\n')
			}
		}
	}
	return []byte(b.String())
}
