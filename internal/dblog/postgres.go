package dblog

import (
	"bufio"

	"github.com/dbmem/dbmem/internal/loglines"
	"io"
	"regexp"
	"strings"
	"time"
)

// Options tune how logs are read. The zero value is usable.
type Options struct {
	// Location is assumed for stamps printed without a zone or with an
	// abbreviation that is missing from the table or ambiguous (CST, IST).
	// Pass the server's log_timezone, e.g. time.LoadLocation("Asia/Kolkata").
	// Default UTC.
	Location *time.Location
}

// PostgresLog is what ParsePostgres found, in log order.
type PostgresLog struct {
	Crashes     []CrashRestart
	OutOfMemory []OutOfMemoryError
	// Postmasters are the postmaster PIDs the log shows ("ready to accept
	// connections", "starting PostgreSQL" and "listening on" lines).
	Postmasters []Postmaster
	// ContextDumps are the memory context dumps pg_log_backend_memory_contexts
	// had backends write (PostgreSQL 14+), in the order they started.
	ContextDumps []ContextDump
	// Stats counts the lines read and the over-long ones skipped.
	Stats loglines.Stats
}

// Postmaster is a postmaster PID and when the log first shows it.
type Postmaster struct {
	PID     int
	Time    time.Time
	TimeRaw string
}

// ParsePostgres reads a PostgreSQL server log with default Options.
func ParsePostgres(r io.Reader) (PostgresLog, error) { return Options{}.ParsePostgres(r) }

var csvStartRe = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? ?[A-Za-z0-9:+-]*,`)

// ParsePostgres reads a PostgreSQL server log: stderr with any prefix,
// csvlog or jsonlog (guessed from the first line). On a read error it
// returns what it found so far with the error.
func (o Options) ParsePostgres(r io.Reader) (PostgresLog, error) {
	if o.Location == nil {
		o.Location = time.UTC
	}
	br := bufio.NewReader(r)
	head, _ := br.Peek(4096) // without consuming input
	st := &pgState{}
	var err error
	switch PostgresLogFormat(head) {
	case "json":
		st.out.Stats, err = readJSON(br, o.Location, st)
	case "csv":
		err = readCSV(br, o.Location, st)
	default:
		st.out.Stats, err = readStderr(br, o.Location, st)
	}
	st.trailingDump()
	st.end("the log ends before the server was ready again")
	st.out.ContextDumps = st.ctx.finish()
	return st.out, err
}

// firstLine returns the first non-empty line of the first 4 KiB of text.
func firstLine(text []byte) string {
	for _, l := range strings.Split(string(text[:min(len(text), 4096)]), "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// pgState follows the postmaster through crashes and recoveries.
type pgState struct {
	out  PostgresLog
	cur  *CrashRestart
	dump []MemoryContext
	// exited holds an "exited with exit code" entry until the postmaster
	// says whether it caused a restart.
	exited *CrashRestart
	grand  *MemoryContext
	// ctx assembles the dumps written one LOG entry per context.
	ctx dumps
	// shutdown is set by an immediate shutdown request: the crash warnings
	// that follow are the shutdown's, not a crash's. stopAsked is the last
	// smart or fast shutdown request.
	shutdown  bool
	stopAsked stamp
	// lastOOM is 1 + the index of the out-of-memory error just read, 0
	// when another message followed it: a dump right after an error that
	// had none before it is that error's (pastes put it after).
	lastOOM int
}

// trailingDump gives the dump read since the last message to the
// out-of-memory error just before it, when that error has none.
func (s *pgState) trailingDump() {
	if s.lastOOM == 0 || len(s.dump) == 0 {
		return
	}
	if o := &s.out.OutOfMemory[s.lastOOM-1]; len(o.Contexts) == 0 {
		o.Contexts, o.GrandTotal = s.dump, s.grand
		s.dump, s.grand = nil, nil
	}
}

var (
	terminatedRe = regexp.MustCompile(`^(.+?) \(PID (\d+)\) (?:was terminated by signal (\d+)(?:: (.*))?|exited with exit code (\d+))`)
	elapsedRe    = regexp.MustCompile(`elapsed: ([0-9.]+) s`)
	lastUpRe     = regexp.MustCompile(`last known up at (.*)$`)
)

func (s *pgState) dumpLine(raw string) {
	c, grand, ok := parseDumpLine(raw)
	switch {
	case !ok:
	case grand:
		s.grand = &c
	default:
		if c.Name == "TopMemoryContext" && c.Depth == 0 {
			s.dump, s.grand = nil, nil // a new dump starts
		}
		s.dump = append(s.dump, c)
	}
}

func (s *pgState) entry(e entry) {
	if s.ctx.add(e) {
		return
	}
	s.notePostmaster(e)
	o, ok := outOfMemory(e)
	if !ok {
		s.trailingDump() // a dump before an error is the error's own
	}
	if ok {
		o.Contexts, o.GrandTotal = s.dump, s.grand
		s.dump, s.grand = nil, nil
		s.out.OutOfMemory = append(s.out.OutOfMemory, o)
		s.lastOOM = len(s.out.OutOfMemory)
		return
	}
	s.lastOOM = 0
	if e.severity != "LOG" || len(e.message) > maxDumpLine || !strings.Contains(e.message, "(PID ") {
		s.onMilestone(e)
		return
	}
	if m := terminatedRe.FindStringSubmatch(e.message); m != nil {
		s.onTerminated(e, m)
		return
	}
	s.onMilestone(e)
}

// notePostmaster records the postmaster PID of the lines only it logs.
func (s *pgState) notePostmaster(e entry) {
	if e.pid == 0 || e.severity != "LOG" {
		return
	}
	m := e.message
	if !strings.HasPrefix(m, "database system is ready to accept") && !strings.HasPrefix(m, "starting PostgreSQL") &&
		!strings.HasPrefix(m, "listening on") {
		return
	}
	if n := len(s.out.Postmasters); n > 0 && s.out.Postmasters[n-1].PID == e.pid {
		return
	}
	s.out.Postmasters = append(s.out.Postmasters, Postmaster{PID: e.pid, Time: e.st.t, TimeRaw: e.st.raw})
}
