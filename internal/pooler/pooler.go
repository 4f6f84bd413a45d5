package pooler

import (
	"github.com/dbmem/dbmem/internal/linux"
)

// Kind names a pooler program.
type Kind string

// The poolers dbmem knows.
const (
	PgBouncer Kind = "pgbouncer"
	PgCat     Kind = "pgcat"
	Odyssey   Kind = "odyssey"
)

// kindOfComm maps a process name to its pooler kind.
func kindOfComm(comm string) (Kind, bool) {
	switch comm {
	case "pgbouncer":
		return PgBouncer, true
	case "pgcat":
		return PgCat, true
	case "odyssey":
		return Odyssey, true
	}
	return "", false
}

// Pooler is one running pooler process: its configuration and, for
// PgBouncer, what its admin console said.
type Pooler struct {
	Kind Kind `json:"kind"`
	PID  int  `json:"pid"`
	// UID runs the process (real = effective, checked when proving it);
	// Account is its name on the host that read it.
	UID     uint32 `json:"uid"`
	Account string `json:"account,omitempty"`
	// ConfigFile is the file the command line names (absolute, from the
	// process's working directory); Files every file read, includes too.
	ConfigFile string `json:"config_file,omitempty"`
	// Cwd is the process's working directory: relative includes start
	// there ("" when unreadable).
	Cwd   string   `json:"cwd,omitempty"`
	Files []string `json:"files,omitempty"`
	// Problems are lines the pooler would refuse and what dbmem could not
	// read; Refused says the configuration as it stands would not load,
	// so the running pooler may hold other values than the files.
	Problems []Problem `json:"problems,omitempty"`
	Refused  bool      `json:"refused,omitempty"`
	// One of these holds the configuration, by Kind.
	PgBouncer *PgBouncerConfig `json:"pgbouncer,omitempty"`
	PgCat     *PgCatConfig     `json:"pgcat,omitempty"`
	Odyssey   *OdysseyConfig   `json:"odyssey,omitempty"`
	// Console is what PgBouncer's admin console answered; Connection says
	// how it was reached, or why not.
	Console    *Console `json:"console,omitempty"`
	Connection string   `json:"connection"`
	// NotRead names what decides server connections that dbmem does not
	// read for this kind (said plainly, never assumed away).
	NotRead []string    `json:"not_read,omitempty"`
	Gaps    []linux.Gap `json:"gaps,omitempty"`
}

func (p *Pooler) gap(what, why string) {
	p.Gaps = append(p.Gaps, linux.Gap{What: what, Why: why})
}
