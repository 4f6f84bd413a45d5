package postmortem

import (
	"time"
)

// Kind is what wrote a log.
type Kind string

// Log kinds.
const (
	KindKernel   Kind = "kernel"
	KindPostgres Kind = "postgresql"
	KindMySQL    Kind = "mysql"
	KindOracle   Kind = "oracle"
	// KindService is a service manager's log (the journal's units,
	// systemd-oomd, earlyoom, kubelet).
	KindService Kind = "service"
	// KindUnknown is a log given as a database log that no engine's lines
	// were found in: "not a recognised log".
	KindUnknown Kind = "unrecognised"
)

// State says what came of trying a source.
type State string

// Source states.
const (
	StateRead    State = "read"    // text was read (it may hold no OOM report)
	StateEmpty   State = "empty"   // the source exists but holds nothing
	StateMissing State = "missing" // no such file or program
	StateFailed  State = "failed"  // it exists but could not be read
)

// Log is one log source: what was tried, what came of it, how to read its
// clocks, and the text read (only when State is StateRead).
type Log struct {
	Kind Kind `json:"kind"`
	// Source names it: a command ("dmesg --time-format iso") or a file path.
	Source string `json:"source"`
	// Instance is the database instance the log belongs to, when known.
	Instance string `json:"instance,omitempty"`
	State    State  `json:"state"`
	// Why explains a state other than read, or a partial read.
	Why string `json:"why,omitempty"`
	// SizeBytes is the size of the whole file (or command output);
	// ReadBytes what was read; Truncated is true when only the tail was read.
	SizeBytes int64 `json:"size_bytes"`
	ReadBytes int64 `json:"read_bytes"`
	Truncated bool  `json:"truncated,omitempty"`
	// Zone is the zone of stamps printed without one (syslog, dmesg -T,
	// MariaDB, PostgreSQL's ambiguous abbreviations): an IANA name, or
	// "UTC+hh:mm" for a fixed offset.
	Zone string `json:"zone,omitempty"`
	// Given is true for a file named on the command line (--kernel-log,
	// --db-log): it may come from any host.
	Given bool `json:"given,omitempty"`
	// ModTime is the file's modification time: the year of its syslog
	// stamps when nothing better says it.
	ModTime time.Time `json:"mod_time,omitzero"`
	// BootTime gives monotonic dmesg stamps a wall time.
	BootTime time.Time `json:"boot_time,omitzero"`
	// Excerpt is true when Text holds only the lines of the OOM reports (or
	// crash restarts), and unit and killer lines, of the source, as bundles
	// store them.
	Excerpt bool `json:"excerpt,omitempty"`
	// Tried are the first lines of a log of KindUnknown, as read.
	Tried []string `json:"first_lines_tried,omitempty"`
	// Format is the journal export a file was converted from (json,
	// export), "" for text.
	Format string `json:"format,omitempty"`
	// Text is what was read.
	Text []byte `json:"-"`
}

// location returns the zone Zone names, else def.
func (l Log) location(def *time.Location) *time.Location {
	if loc, ok := ParseZone(l.Zone); ok {
		return loc
	}
	return def
}
