package cli

import (
	"encoding/json"
	"io"

	"github.com/dbmem/dbmem/internal/inert"
)

// inertOutput puts inert.Writer between every command and the terminal
// (called once the flags are parsed): text output loses any control
// character a foreign string brought (a process name, a log line, a
// server's answer) that the formatting code did not already escape, and
// --json output escapes the characters encoding/json leaves raw. Colour
// codes dbmem writes pass when colour is on.
func (e *env) inertOutput() {
	if _, done := e.stdout.(*inert.Writer); done {
		return
	}
	if e.json {
		e.stdout = inert.NewJSONWriter(e.rawStdout)
	} else {
		e.stdout = inert.NewWriter(e.rawStdout, e.color())
	}
	e.stderr = inert.NewWriter(e.rawStderr, false)
}

// flushOutput writes what the writers hold back (a character cut short).
func (e *env) flushOutput() {
	for _, w := range []any{e.stdout, e.stderr} {
		if iw, ok := w.(*inert.Writer); ok {
			iw.Flush()
		}
	}
}

// writeJSON writes v as indented JSON: every --json output.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
