package postmortem

import (
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// userHZ is the unit of /proc/PID/stat start times on Linux.
const userHZ = 100

// running is a database process of the snapshot with its start time.
type running struct {
	Role, Instance string
	Start          time.Time
}

// roles knows the role of a PID at the time of an event: from the database
// logs, and for this host's own events from the processes running now.
type roles struct {
	running     map[int]running
	crashes     []crashRef
	postmasters []pmRef
}

func newRoles(s *snapshot.Snapshot, boot time.Time, db dbResult) roles {
	r := roles{running: map[int]running{}, crashes: db.crashes, postmasters: db.postmasters}
	if s == nil || boot.IsZero() {
		return r
	}
	for _, in := range s.Postgres {
		subject := advise.PostgresSubject(in)
		for _, p := range in.Processes {
			start := boot.Add(time.Duration(p.StartTicks) * time.Second / userHZ)
			r.running[p.PID] = running{Role: string(p.Role), Instance: subject, Start: start}
		}
	}
	return r
}

// logWindow bounds how far from a crash its PIDs are trusted (PIDs are
// reused).
const logWindow = 24 * time.Hour

// of returns the role of pid at time at: from the paired crash, from a
// postmaster a database log shows near that time, from a process still
// running that started before the event, or from the process name.
func (r roles) of(pid int, name string, at time.Time, paired *crashRef) (role, from, instance string) {
	if c := paired; c != nil && c.KilledPID != nil && *c.KilledPID == pid {
		return crashRole(c.Process, c.Engine), "database log", c.Instance
	}
	if postgres.IsServerComm(name) {
		if inst, ok := r.postmaster(pid, at); ok {
			return "postmaster", "database log", inst
		}
	}
	if p, ok := r.running[pid]; ok && !at.IsZero() && !p.Start.After(at.Add(time.Second)) {
		return p.Role, "running process", p.Instance
	}
	if mysql.IsServerComm(name) {
		return "server", "process name", ""
	}
	return "", "", ""
}

// postmaster finds pid among the postmasters the database logs show.
func (r roles) postmaster(pid int, at time.Time) (string, bool) {
	near := func(t time.Time) bool { return at.IsZero() || t.IsZero() || t.Sub(at).Abs() < logWindow }
	for _, c := range r.crashes {
		if c.Engine == "postgresql" && c.ServerPID != nil && *c.ServerPID == pid && near(c.Time) {
			return c.Instance, true
		}
	}
	for _, p := range r.postmasters {
		if p.PID == pid && near(p.Time) {
			return p.Instance, true
		}
	}
	return "", false
}

// crashRole names what the postmaster said died: "server process" is a
// client backend; "checkpointer process" a checkpointer.
func crashRole(process, engine string) string {
	if engine == "mysql" {
		return "server"
	}
	switch p := strings.TrimSuffix(process, " process"); p {
	case "server":
		return "client backend"
	case "WAL writer":
		return "walwriter"
	case "":
		return "unknown"
	default:
		return p
	}
}
