package postmortem

import (
	"bytes"
	"context"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/unitlog"
)

// unitJournalArgs read, as JSON, what systemd (PID 1 and the user
// managers), systemd-oomd, earlyoom and kubelet logged: the newest 50,000
// entries of all the boots journald kept.
var unitJournalArgs = []string{"-o", "json", "--no-pager", "-q", "-n", "50000",
	"_PID=1", "+", "SYSLOG_IDENTIFIER=systemd", "+", "SYSLOG_IDENTIFIER=systemd-oomd", "+", "SYSLOG_IDENTIFIER=earlyoom",
	"+", "SYSLOG_IDENTIFIER=kubelet"}

// serviceFiles are the syslog files that hold the daemons' lines on
// Debian and Ubuntu (RHEL's /var/log/messages is read as a kernel log,
// which also looks for them).
var serviceFiles = []string{"/var/log/syslog", "/var/log/daemon.log"}

// unitJournalLog asks journald for the service manager's and the other
// killers' messages, converted from JSON to text.
func unitJournalLog(ctx context.Context, run Runner) Log {
	l := journalLog(ctx, func(ctx context.Context, name string, _ ...string) ([]byte, error) {
		return run(ctx, name, unitJournalArgs...)
	})
	l.Kind, l.Source = KindService, "journalctl -o json (systemd, systemd-oomd, earlyoom, kubelet)"
	if l.State == StateEmpty {
		l.Why = "journald holds no messages of systemd, systemd-oomd, earlyoom or kubelet"
	}
	if l.State != StateRead {
		return l
	}
	text, skipped, err := unitlog.Journal(bytes.NewReader(l.Text), unitlog.FormatJSON)
	l.Text, l.Format = text, unitlog.FormatJSON
	if skipped > 0 || err != nil {
		l.Why = strings.TrimPrefix(l.Why+"; some journal records were not readable", "; ")
	}
	return l
}

// gatherServices reads the journal (live host) and the syslog files that
// hold the daemons' lines.
func gatherServices(ctx context.Context, o GatherOptions) []Log {
	var logs []Log
	if o.FS.IsLive() {
		logs = append(logs, unitJournalLog(ctx, o.Run))
	}
	for _, base := range serviceFiles {
		files := rotations(base, listDir(o.FS.HostPath(path.Dir(base))))
		if len(files) == 0 {
			logs = append(logs, Log{Kind: KindService, Source: base, State: StateMissing, Why: "no such file"})
			continue
		}
		logs = append(logs, fileLogs(ctx, openLog, KindService, "", files, o.FS.HostPath, o.MaxBytes, 4*o.MaxBytes)...)
	}
	return logs
}
