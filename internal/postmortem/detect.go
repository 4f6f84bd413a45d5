package postmortem

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/unitlog"
)

// fromJournal turns a journalctl -o json or -o export file into the text
// the parsers read; Format says which it was.
func fromJournal(l Log) Log {
	if l.State != StateRead {
		return l
	}
	f := unitlog.JournalFormat(l.Text)
	if f == "" {
		return l
	}
	text, skipped, err := unitlog.Journal(bytes.NewReader(l.Text), f)
	l.Text, l.Format = text, f
	if skipped > 0 || err != nil {
		l.Why = strings.TrimPrefix(l.Why+"; ", "; ") + fmt.Sprintf("journal export (%s): %d records not readable", f, skipped)
	}
	return l
}

// detectKind says what wrote a log given as a database log: an engine by
// its lines, else a service manager's log when unit or killer messages are
// in it, else it is not a recognised log (and the first lines tried are
// kept to say so).
func detectKind(l Log) Log {
	if l.State != StateRead {
		return l
	}
	d := dblog.Detect(l.Text)
	switch d.Engine {
	case dblog.EnginePostgres:
		l.Kind = KindPostgres
	case dblog.EngineMySQL:
		l.Kind = KindMySQL
	case dblog.EngineOracle:
		l.Kind = KindOracle
	default:
		ul, _ := unitlog.Parse(bytes.NewReader(l.Text))
		if len(ul.Units)+len(ul.Killers) > 0 {
			l.Kind = KindService
			return l
		}
		l.Kind, l.Tried = KindUnknown, d.Tried
		l.Why = "not a recognised log: no line of a PostgreSQL, MySQL/MariaDB or Oracle log, nor of a service manager, in its first lines"
	}
	return l
}
