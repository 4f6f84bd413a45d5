package bundle

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/dbmem/dbmem/internal/measure"
	"io"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/oomguard"
	"github.com/dbmem/dbmem/internal/plan"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/postmortem"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// CaptureOptions say what to capture.
type CaptureOptions struct {
	// FS are the live host's roots (no Tap: Capture sets its own).
	FS linux.FS
	// Live reads PostgreSQL settings over SQL; nil reads files only.
	Live postgres.LiveSource
	// MySQLLive reads MySQL/MariaDB settings over SQL; nil reads files only.
	MySQLLive mysql.LiveSource
	// PoolerConsole reads PgBouncer's admin console; nil reads files only.
	PoolerConsole pooler.ConsoleSource
	// Method measures private cost, as report --method does (a capture
	// reads smaps_rollup where auto would take the fast path).
	Method measure.Method
	// WithQueries keeps query texts in the database logs.
	WithQueries bool
	// KernelLogs, DBLogs, MaxLogBytes and Run are passed to postmortem.Gather.
	KernelLogs, DBLogs []string
	MaxLogBytes        int64
	Run                postmortem.Runner
	// GuardRun runs systemctl for the OOM guard (default: the program,
	// where systemd is PID 1).
	GuardRun oomguard.Runner
	Version  string
	Now      func() time.Time
}

// Captured is what Capture wrote and the snapshot it took (what a live
// report at that moment shows).
type Captured struct {
	Manifest  Manifest
	Snapshot  *snapshot.Snapshot
	Processes []linux.Process
}

// Capture reads the host as report, check and postmortem do, recording
// every file read, redacts it and writes the bundle to w.
func Capture(ctx context.Context, w io.Writer, o CaptureOptions) (*Captured, error) {
	c, err := collect(ctx, o)
	if err != nil {
		return nil, err
	}
	if err := c.contents.write(w); err != nil {
		return nil, err
	}
	return &Captured{Manifest: c.contents.manifest, Snapshot: c.snap, Processes: c.procs}, nil
}

// collected is a capture before it is written.
type collected struct {
	contents contents
	snap     *snapshot.Snapshot
	procs    []linux.Process
}

func collect(ctx context.Context, o CaptureOptions) (*collected, error) {
	rec := capture.NewRecorder()
	fs := o.FS
	fs.Tap = rec
	live := &capture.LiveRecorder{Inner: o.Live}
	var src postgres.LiveSource
	if o.Live != nil {
		src = live
	}
	mylive := &capture.MySQLLiveRecorder{Inner: o.MySQLLive}
	var mysrc mysql.LiveSource
	if o.MySQLLive != nil {
		mysrc = mylive
	}
	poolers := &capture.PoolerRecorder{Inner: o.PoolerConsole}
	var console pooler.ConsoleSource
	if o.PoolerConsole != nil {
		console = poolers
	}
	snap, err := snapshot.Take(ctx, snapshot.Options{FS: fs, Live: src, MySQLLive: mysrc, PoolerConsole: console, Method: o.Method, Now: o.Now,
		Guard: true, GuardRun: o.GuardRun})
	if err != nil {
		return nil, err
	}
	rec.Freeze() // what the snapshot read is what report --from reads
	capture.RecordExistence(fs, capture.ExistenceMarkers...)
	procs, gaps, err := plan.HostProcesses(fs)
	if err != nil {
		return nil, err
	}
	_, zone := postmortem.HostZone(o.FS)
	boot, _ := linux.BootTime(fs)
	logs := postmortem.Gather(ctx, postmortem.GatherOptions{FS: fs, Run: o.Run, KernelLogs: o.KernelLogs, DBLogs: o.DBLogs,
		Postgres: snap.Postgres, MySQL: snap.MySQL, MaxBytes: o.MaxLogBytes, Zone: zone})
	m := Manifest{Schema: Schema, DbmemVersion: o.Version, CapturedAt: snap.TakenAt, Host: snap.Host.Hostname,
		Kernel: snap.Host.KernelRelease, Zone: zone, BootTime: boot, Pss: snap.Pss, WithQueries: o.WithQueries, SQL: o.Live != nil || o.MySQLLive != nil,
		Gaps: append(append([]linux.Gap(nil), snap.Gaps...), gaps...), Owners: snap.Owners()}
	for _, in := range snap.Postgres {
		m.Instances = append(m.Instances, advise.PostgresSubject(in))
	}
	for _, in := range snap.MySQL {
		m.Instances = append(m.Instances, postmortem.MySQLSubject(in))
	}
	c := &collected{snap: snap, procs: procs}
	c.contents, err = assemble(m, rec, o.FS, live, logs, o.WithQueries)
	if err == nil {
		err = c.contents.addMySQLLive(mylive)
	}
	if err == nil {
		err = c.contents.addGuard(snap.OOMGuard)
	}
	if err == nil {
		err = c.contents.addFiles(poolers.Files())
	}
	return c, err
}

// addMySQLLive adds what the MySQL/MariaDB servers said, redacted.
func (c *contents) addMySQLLive(r *capture.MySQLLiveRecorder) error {
	files, changed, err := r.Files()
	if err != nil {
		return err
	}
	for p, b := range files {
		c.files[p] = b
	}
	for p, n := range changed {
		if c.manifest.Redaction.Files.Changed == nil {
			c.manifest.Redaction.Files.Changed = map[string]int{}
		}
		c.manifest.Redaction.Files.Changed[p] = n
	}
	return nil
}

// addFiles adds files recorded beside the tree (live/...).
func (c *contents) addFiles(files map[string][]byte, err error) error {
	for p, b := range files {
		c.files[p] = b
	}
	return err
}

// assemble redacts what was recorded and lays out the bundle.
func assemble(m Manifest, rec *capture.Recorder, src linux.FS, live *capture.LiveRecorder, logs []postmortem.Log, withQueries bool) (contents, error) {
	m.Redaction = Redaction{Rules: rules(withQueries), Files: rec.Redact(src)}
	files, links := rec.Tree(src)
	m.Files, m.Links = len(files), len(links)
	m.Started = rec.StartedLater(src)
	for _, p := range rec.Changed() {
		m.Changed = append(m.Changed, capture.TreePath(p, src))
	}
	for pid, l := range live.Answers() {
		b, err := json.MarshalIndent(l, "", "  ")
		if err != nil {
			return contents{}, fmt.Errorf("encode the settings of postmaster %d: %w", pid, err)
		}
		files[capture.LivePath(pid)] = b
	}
	for pid, why := range live.Failures() {
		files[capture.LiveErrorPath(pid)] = []byte(why)
	}
	for i, l := range logs {
		l, r := redactLog(l, withQueries)
		e := LogEntry{Log: l, Redaction: r}
		if r != nil {
			m.Redaction.Logs.Add(*r)
		}
		if l.State == postmortem.StateRead {
			e.File = logFile(i, l)
			files[e.File] = l.Text
		}
		m.Logs = append(m.Logs, e)
	}
	return contents{manifest: m, files: files, links: links}, nil
}

// WriteFile captures into the file at path, atomically
// (hostchange.WriteOutput: a temporary file in the same directory, synced,
// then renamed; never through a link at path, never over another user's
// file). A new bundle is private (0600): it describes the host in detail.
func WriteFile(ctx context.Context, path string, o CaptureOptions) (*Captured, error) {
	var c *Captured
	err := hostchange.WriteOutput(path, 0o600, func(w io.Writer) (err error) {
		c, err = Capture(ctx, w, o)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("write bundle %s: %w", path, err)
	}
	return c, nil
}
