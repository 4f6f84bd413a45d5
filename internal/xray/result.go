package xray

import (
	"time"
)

// MaxBackends caps how many backends one run asks: each call writes one
// LOG line per memory context (hundreds, thousands with many relations)
// into the server's log.
const MaxBackends = 10

// LogNotice is said once per run.
const LogNotice = "each X-rayed backend writes one LOG line per memory context (hundreds, more with many relations) into the server's log"

// SchemaVersion versions the JSON form of a Result.
const SchemaVersion = "dbmem.xray/v1"

// Result is one instance's X-ray.
type Result struct {
	Schema        string `json:"schema"`
	PostmasterPID int    `json:"postmaster_pid"`
	Port          int    `json:"port,omitempty"`
	DataDir       string `json:"data_dir"`
	Version       string `json:"version,omitempty"`
	// Role is the database role that asked, Superuser whether it is one.
	Role      string `json:"role,omitempty"`
	Superuser bool   `json:"superuser,omitempty"`
	// Log is where the dumps were written; LogNotes what happened to it
	// while dbmem waited (rotated, truncated).
	Log      Source   `json:"log"`
	LogNotes []string `json:"log_notes,omitempty"`
	// Problem says why no backend was X-rayed (the function missing, the
	// grant missing, not connected); Fix what to do.
	Problem  string    `json:"problem,omitempty"`
	Fix      string    `json:"fix,omitempty"`
	Backends []Backend `json:"backends"`
	// Elapsed is what the X-ray took, from the call to the last dump read.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// Backend is one backend's X-ray.
type Backend struct {
	PID      int    `json:"pid"`
	Role     string `json:"role,omitempty"`
	User     string `json:"user,omitempty"`
	Database string `json:"database,omitempty"`
	State    string `json:"state,omitempty"`
	// Asked is the server's time of the call; DumpAt the dump's first line.
	Asked  time.Time `json:"asked,omitzero"`
	DumpAt time.Time `json:"dump_at,omitzero"`
	// Contexts counts the dump's lines (contexts and "more child contexts").
	Contexts int `json:"contexts,omitempty"`
	// Measure is /proc's view just after the dump was read, MeasuredAfter
	// how long after the dump's last line.
	Measure       *Measure      `json:"measure,omitempty"`
	MeasuredAfter time.Duration `json:"measured_after_ns,omitempty"`
	Breakdown     *Breakdown    `json:"breakdown,omitempty"`
	// Problem says why the backend has no breakdown (or why it is partial).
	Problem string `json:"problem,omitempty"`
}
