package postmortem

import (
	"context"
	"os"
	"path"
	"sort"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
)

// GatherOptions say where to look.
type GatherOptions struct {
	// FS are the host's roots: log files are read under Root, btime from
	// Proc. Commands (journalctl, dmesg) run only when FS is the live host.
	FS linux.FS
	// Run runs journalctl and dmesg (default ExecRunner).
	Run Runner
	// KernelLogs, when set, are the only kernel logs read (files as given,
	// not under FS.Root).
	KernelLogs []string
	// DBLogs, when set, replace the search for database logs.
	DBLogs []string
	// Instances whose logs are searched.
	Postgres []*postgres.Instance
	MySQL    []*mysql.Instance
	// MaxBytes is read from the end of each file (default DefaultMaxBytes);
	// each source (kernel files, one instance) reads at most 4 times that.
	MaxBytes int64
	// Zone is the host's zone for stamps without one (HostZone).
	Zone string
}

// Gather reads every kernel and database log it can find. Sources that
// are missing, empty or unreadable are returned too, with the reason.
func Gather(ctx context.Context, o GatherOptions) []Log {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.Run == nil {
		o.Run = ExecRunner
	}
	logs := gatherKernel(ctx, o)
	if len(o.KernelLogs) == 0 {
		logs = append(logs, gatherServices(ctx, o)...)
	}
	logs = append(logs, gatherDB(ctx, o)...)
	for i := range logs {
		if logs[i].Zone == "" {
			logs[i].Zone = o.Zone
		}
	}
	return logs
}

// ReadGiven reads log files named by the user (--kernel-log, --db-log) as
// given, not under any root; the kind of a database log is guessed from
// its lines. They are marked Given: such a file may come from any host.
// Reading stops when ctx is done; a FIFO or pipe is read until its end or
// a deadline.
func ReadGiven(ctx context.Context, kernel, db []string, max int64) []Log {
	if max <= 0 {
		max = DefaultMaxBytes
	}
	asGiven := func(p string) string { return p }
	logs := fileLogs(ctx, openLog, KindKernel, "", kernel, asGiven, max, int64(len(kernel))*max)
	for i := range logs {
		logs[i] = fromJournal(logs[i])
	}
	for _, l := range fileLogs(ctx, openLog, "", "", db, asGiven, max, int64(len(db))*max) {
		logs = append(logs, detectKind(fromJournal(l)))
	}
	for i := range logs {
		logs[i].Given = true
	}
	return logs
}

func gatherKernel(ctx context.Context, o GatherOptions) []Log {
	if len(o.KernelLogs) > 0 {
		return ReadGiven(ctx, o.KernelLogs, nil, o.MaxBytes)
	}
	var logs []Log
	if o.FS.IsLive() {
		boot, _ := linux.BootTime(o.FS)
		logs = append(logs, journalLog(ctx, o.Run), dmesgLog(ctx, o.Run, boot))
	}
	for _, base := range syslogBases {
		files := rotations(base, listDir(o.FS.HostPath(path.Dir(base))))
		if len(files) == 0 {
			logs = append(logs, Log{Kind: KindKernel, Source: base, State: StateMissing, Why: "no such file"})
			continue
		}
		logs = append(logs, fileLogs(ctx, openLog, KindKernel, "", files, o.FS.HostPath, o.MaxBytes, 4*o.MaxBytes)...)
	}
	return logs
}

func gatherDB(ctx context.Context, o GatherOptions) []Log {
	if len(o.DBLogs) > 0 {
		return ReadGiven(ctx, nil, o.DBLogs, o.MaxBytes)
	}
	var plans []logPlan
	for _, in := range o.Postgres {
		plans = append(plans, planPostgres(in))
	}
	for _, in := range o.MySQL {
		plans = append(plans, planMySQL(in))
	}
	var logs []Log
	for _, p := range plans {
		logs = append(logs, readPlan(ctx, o.FS, p, o.MaxBytes)...)
	}
	return logs
}

// readPlan reads the files of one instance's plan, newest first.
func readPlan(ctx context.Context, fs linux.FS, p logPlan, max int64) []Log {
	if p.Why != "" {
		return []Log{{Kind: p.Kind, Source: "(not found)", Instance: p.Instance, State: StateMissing, Why: p.Why}}
	}
	files := p.Files
	if p.Rotations && len(files) == 1 {
		if rs := rotations(files[0], listDir(fs.HostPath(path.Dir(files[0])))); len(rs) > 0 {
			files = rs
		}
	}
	if p.Match != nil {
		files = newestMatching(fs, p)
		if len(files) == 0 {
			return []Log{{Kind: p.Kind, Source: p.Dir, Instance: p.Instance, State: StateMissing,
				Why: "no file in the log directory matches log_filename (" + p.Match.String() + ")"}}
		}
	}
	logs := fileLogs(ctx, fs.As(p.Account).Open, p.Kind, p.Instance, files, fs.HostPath, max, 4*max) // the server's rights, no links it made
	for i := range logs {
		if p.Zone != "" {
			logs[i].Zone = p.Zone
		}
	}
	return logs
}

// newestMatching lists the files of the plan's directory whose names match,
// newest (by modification time) first.
func newestMatching(fs linux.FS, p logPlan) []string {
	type file struct {
		p string
		t time.Time
	}
	var found []file
	for _, n := range listDir(fs.HostPath(p.Dir)) {
		if !p.Match.MatchString(n) {
			continue
		}
		fp := path.Join(p.Dir, n)
		if st, err := os.Stat(fs.HostPath(fp)); err == nil && st.Mode().IsRegular() {
			found = append(found, file{fp, st.ModTime()})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].t.After(found[j].t) })
	var out []string
	for i, f := range found {
		if i == maxRotations {
			break
		}
		out = append(out, f.p)
	}
	return out
}

// listDir returns the names in dir, nil when it cannot be read.
func listDir(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}
