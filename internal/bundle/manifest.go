package bundle

import (
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/logredact"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// Schema versions the bundle layout and manifest.
const Schema = "dbmem.bundle/v1"

// Manifest describes a bundle.
type Manifest struct {
	Schema       string    `json:"schema"`
	DbmemVersion string    `json:"dbmem_version"`
	CapturedAt   time.Time `json:"captured_at"`
	Host         string    `json:"host"`
	Kernel       string    `json:"kernel"`
	// Zone is the host's time zone (postmortem.HostZone); BootTime its boot.
	Zone     string    `json:"zone"`
	BootTime time.Time `json:"boot_time,omitzero"`
	// Pss says whether smaps_rollup was read; WithQueries whether query
	// texts were kept in the logs.
	Pss         bool `json:"pss"`
	WithQueries bool `json:"with_queries"`
	// SQL says whether the servers were asked over SQL (live/ holds their
	// answers or why asking failed).
	SQL bool `json:"sql"`
	// Instances are the database instances found.
	Instances []string `json:"instances"`
	// Owners are who owned each instance's process, binary and data
	// directory, by server PID: a replay (plan --from) trusts only those
	// of a trusted account, as on the live host.
	Owners map[int]*servertrust.Ownership `json:"owners,omitempty"`
	// Files and Links count the recorded /proc, /sys and host entries.
	Files int `json:"files"`
	Links int `json:"links"`
	// Changed are files read more than once during the capture whose
	// content changed between the reads (busy counters); the bundle keeps
	// the first content.
	Changed []string `json:"changed_while_read,omitempty"`
	// Started are processes that started while the capture read the
	// host: a later reader saw them, an earlier one did not, and a replay
	// shows them to every reader.
	Started []int `json:"started_during_capture,omitempty"`
	// Logs are every log source tried; File is where its text is in the
	// bundle (empty when nothing was read).
	Logs []LogEntry `json:"logs"`
	// OOMGuard names the member holding the OOM guard as read at capture
	// (oomguard.Guard: the database units' OOM settings, systemd-oomd,
	// earlyoom, the OOM sysctls); empty in bundles of older dbmem.
	OOMGuard  string      `json:"oom_guard,omitempty"`
	Redaction Redaction   `json:"redaction"`
	Gaps      []linux.Gap `json:"gaps,omitempty"`
}

// LogEntry is a log source and where the bundle keeps its text.
type LogEntry struct {
	postmortem.Log
	File      string               `json:"file,omitempty"`
	Redaction *logredact.LogCounts `json:"redaction,omitempty"`
}

// Redaction says what was removed before writing.
type Redaction struct {
	// Rules are the redaction rules applied, in words.
	Rules []string `json:"rules"`
	// Files are the recorded files changed or dropped.
	Files capture.Redaction `json:"files"`
	// Logs sums what was replaced in the logs.
	Logs logredact.LogCounts `json:"logs"`
}

// rules describes the redaction in the manifest.
func rules(withQueries bool) []string {
	r := []string{
		"process environments (/proc/PID/environ) are never read",
		"passwords, tokens and keys in command lines (--password=, --password X, --token, --api-key, --secret, mysql -pX, sshpass -p, redis-cli -a, curl -u user:X, Authorization headers, password= in connection strings, URIs user:password@)",
		"passwords in configuration files (password=, primary_conninfo), and in logs (also SQL PASSWORD '...', IDENTIFIED BY '...')",
		"kernel logs: only the lines of OOM reports are kept",
	}
	if withQueries {
		return append(r, "query texts are kept (--with-queries), bind parameters (DETAIL parameters, portal parameters) are not")
	}
	return append(r, "query texts in database logs: STATEMENT, QUERY, CONTEXT, \"Failed process was running:\", "+
		"DETAIL parameters, logged statements and plans, memory context idents; pg_stat_activity queries are never read")
}
