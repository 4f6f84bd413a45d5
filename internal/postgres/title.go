package postgres

import (
	"strings"
)

// Role is what a PostgreSQL process does, named as pg_stat_activity's
// backend_type names it ("client backend", "checkpointer", ...), plus
// "postmaster".
type Role string

// Roles dbmem knows. Background workers of extensions keep their own names.
const (
	RolePostmaster   Role = "postmaster"
	RoleClient       Role = "client backend"
	RoleCheckpointer Role = "checkpointer"
	RoleBgWriter     Role = "background writer"
	RoleWalWriter    Role = "walwriter"
	RoleAVLauncher   Role = "autovacuum launcher"
	RoleAVWorker     Role = "autovacuum worker"
	RoleWalSender    Role = "walsender"
	RoleWalReceiver  Role = "walreceiver"
	RoleStartup      Role = "startup"
	RoleArchiver     Role = "archiver"
	RoleStats        Role = "stats collector"
	RoleLogger       Role = "logger" // logging_collector; only its title names it, not pg_stat_activity
	RoleLRLauncher   Role = "logical replication launcher"
	RoleLRWorker     Role = "logical replication worker"
	RoleParallel     Role = "parallel worker"
	RoleIOWorker     Role = "io worker"
	RoleWalSummary   Role = "walsummarizer"
	RoleSlotSync     Role = "slotsync worker"
	RoleBgWorker     Role = "background worker"
	RoleUnknown      Role = "unknown"
)

// titlePrefixes maps the start of a process title (after "postgres: " and
// any cluster name) to a role, for every PostgreSQL version's wording.
var titlePrefixes = []struct {
	prefix string
	role   Role
}{
	{"checkpointer", RoleCheckpointer},
	{"background writer", RoleBgWriter},
	{"writer process", RoleBgWriter}, // 9.x
	{"walwriter", RoleWalWriter},
	{"wal writer", RoleWalWriter}, // 9.x-10: "wal writer process"
	{"autovacuum launcher", RoleAVLauncher},
	{"autovacuum worker", RoleAVWorker},
	{"logical replication launcher", RoleLRLauncher},
	{"logical replication", RoleLRWorker}, // worker, apply worker, tablesync worker
	{"parallel worker", RoleParallel},
	{"walsender", RoleWalSender},
	{"wal sender", RoleWalSender},
	{"walreceiver", RoleWalReceiver},
	{"wal receiver", RoleWalReceiver},
	{"walsummarizer", RoleWalSummary},
	{"startup", RoleStartup},
	{"archiver", RoleArchiver},
	{"stats collector", RoleStats},
	{"logger", RoleLogger}, // 9.x-10: "logger process"
	{"io worker", RoleIOWorker},
	{"slotsync worker", RoleSlotSync},
	{"bgworker:", RoleBgWorker},
}

// Title is what a process title tells about a PostgreSQL process.
type Title struct {
	Role     Role   `json:"role"`
	User     string `json:"user,omitempty"`
	Database string `json:"database,omitempty"`
	Client   string `json:"client,omitempty"` // "[local]" or "10.0.0.5(51234)"
	State    string `json:"state,omitempty"`  // "idle", "idle in transaction", "SELECT", ...
	Detail   string `json:"detail,omitempty"` // the rest of an auxiliary process's title
	// Unauthenticated marks a client still in authentication: its user and
	// database are what it claims in its startup packet, not facts.
	Unauthenticated bool `json:"unauthenticated,omitempty"`
}

// ParseTitle reads a backend's process title ("postgres: 15/main: app db
// [local] idle"). clusterName, when known, is stripped first; otherwise a
// leading "name: " is tried both ways. Titles that do not start with
// "postgres: " give RoleUnknown.
func ParseTitle(title, clusterName string) Title {
	rest, ok := strings.CutPrefix(strings.TrimSpace(title), "postgres: ")
	if !ok {
		rest, ok = strings.CutPrefix(strings.TrimSpace(title), "postgres:")
	}
	if !ok {
		return Title{Role: RoleUnknown}
	}
	if clusterName != "" {
		rest = strings.TrimPrefix(rest, clusterName+": ")
	}
	if t, ok := parseTitleBody(rest); ok {
		return t
	}
	if _, after, found := strings.Cut(rest, ": "); found {
		if t, ok := parseTitleBody(after); ok {
			return t
		}
	}
	return Title{Role: RoleBgWorker, Detail: strings.TrimSpace(rest)}
}

func parseTitleBody(s string) (Title, bool) {
	s = strings.TrimSpace(s)
	for _, p := range titlePrefixes {
		// Whole words only: "loggerapp shop [local] idle" is a client.
		if rest, ok := strings.CutPrefix(s, p.prefix); ok && (rest == "" || rest[0] == ' ') {
			return Title{Role: p.role, Detail: strings.TrimSpace(rest)}, true
		}
	}
	f := strings.Fields(s)
	if len(f) >= 3 && isClientAddr(f[2]) {
		t := Title{Role: RoleClient, User: f[0], Database: f[1], Client: f[2]}
		t.State = strings.Join(f[3:], " ")
		t.Unauthenticated = t.State == "authentication" // PerformAuthentication's title, until it succeeds
		return t, true
	}
	return Title{}, false
}

// isClientAddr recognises "[local]" and "host(port)".
func isClientAddr(s string) bool {
	if s == "[local]" {
		return true
	}
	i := strings.LastIndexByte(s, '(')
	if i <= 0 || !strings.HasSuffix(s, ")") {
		return false
	}
	port := s[i+1 : len(s)-1]
	for _, c := range port {
		if c < '0' || c > '9' {
			return false
		}
	}
	return port != ""
}

// RoleFromBackendType maps pg_stat_activity.backend_type to a Role; unknown
// types (extension workers) are background workers with their name kept.
func RoleFromBackendType(bt string) (Role, string) {
	for _, r := range []Role{RoleClient, RoleCheckpointer, RoleBgWriter, RoleWalWriter, RoleAVLauncher,
		RoleAVWorker, RoleWalSender, RoleWalReceiver, RoleStartup, RoleArchiver, RoleLRLauncher,
		RoleLRWorker, RoleParallel, RoleIOWorker, RoleWalSummary, RoleSlotSync} {
		if bt == string(r) {
			return r, ""
		}
	}
	if strings.HasPrefix(bt, "logical replication") {
		return RoleLRWorker, bt
	}
	return RoleBgWorker, bt
}
