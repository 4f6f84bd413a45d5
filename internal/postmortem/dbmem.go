package postmortem

import (
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
)

// MemoryError is a MySQL/MariaDB or Oracle allocation that failed.
type MemoryError struct {
	Engine       string     `json:"engine"`
	Code         string     `json:"code"`
	Source       string     `json:"source"`
	Time         *time.Time `json:"time"`
	TimeRaw      string     `json:"time_raw"`
	ZoneKnown    bool       `json:"zone_known"`
	RequestBytes *uint64    `json:"request_bytes"`
	Errno        *int       `json:"errno"`
	Area         string     `json:"area,omitempty"`
	Process      string     `json:"process,omitempty"`
	PID          *int       `json:"pid"`
	TraceFile    string     `json:"trace_file,omitempty"`
	Incident     string     `json:"incident,omitempty"`
	// StartupFailed: the server gave up starting after it.
	StartupFailed bool     `json:"startup_failed,omitempty"`
	Message       string   `json:"message"`
	Why           string   `json:"why"`
	Lines         []string `json:"lines"`
}

// Termination is an Oracle instance ended by one of its processes.
type Termination struct {
	Source    string     `json:"source"`
	Time      *time.Time `json:"time"`
	TimeRaw   string     `json:"time_raw"`
	ZoneKnown bool       `json:"zone_known"`
	By        string     `json:"by"`
	PID       *int       `json:"pid"`
	Error     string     `json:"error,omitempty"`
	Lines     []string   `json:"lines"`
}

// ServerReady is a MySQL/MariaDB "ready for connections" line: when a
// start finished.
type ServerReady struct {
	Source  string     `json:"source"`
	Time    *time.Time `json:"time"`
	TimeRaw string     `json:"time_raw"`
}

func memoryErrors(es []dblog.MemoryError, l Log, loc *time.Location) []MemoryError {
	out := make([]MemoryError, 0, len(es))
	for _, e := range es {
		x := MemoryError{Engine: e.Engine, Code: e.Code, Source: l.Source, Time: timeIn(e.Time, loc), TimeRaw: e.TimeRaw,
			ZoneKnown: e.ZoneKnown, RequestBytes: e.RequestBytes, Errno: e.Errno, Area: e.Area, Process: e.Process, PID: e.PID,
			TraceFile: e.TraceFile, Incident: e.Incident, StartupFailed: e.StartupFailed, Message: e.Message, Lines: e.Lines}
		x.Why = memoryErrorWhy(x)
		out = append(out, x)
	}
	return out
}

func terminations(ts []dblog.Termination, l Log, loc *time.Location) []Termination {
	out := make([]Termination, 0, len(ts))
	for _, t := range ts {
		out = append(out, Termination{Source: l.Source, Time: timeIn(t.Time, loc), TimeRaw: t.TimeRaw, ZoneKnown: t.ZoneKnown, By: t.By, PID: t.PID,
			Error: t.Error, Lines: t.Lines})
	}
	return out
}

func readyTimes(ms []dblog.Milestone, l Log, loc *time.Location) []ServerReady {
	out := make([]ServerReady, 0, len(ms))
	for _, m := range ms {
		out = append(out, ServerReady{Source: l.Source, Time: timeIn(m.Time, loc), TimeRaw: m.TimeRaw})
	}
	return out
}
