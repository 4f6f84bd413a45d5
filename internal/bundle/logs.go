package bundle

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dbmem/dbmem/internal/logredact"
	"github.com/dbmem/dbmem/internal/postmortem"
)

// Logs returns the log sources of the capture, with their texts.
func (b *Bundle) Logs() ([]postmortem.Log, error) {
	out := make([]postmortem.Log, 0, len(b.Manifest.Logs))
	for _, e := range b.Manifest.Logs {
		l := e.Log
		if e.File != "" {
			if err := checkName(e.File); err != nil || !strings.HasPrefix(e.File, "logs/") {
				return nil, fmt.Errorf("read bundle %s: manifest names log file %q outside logs/", b.Path, e.File)
			}
			text, ok := b.tree.files[e.File]
			if !ok {
				return nil, fmt.Errorf("read bundle %s: the manifest names %s, which is not in the bundle", b.Path, e.File)
			}
			l.Text = text
		}
		out = append(out, l)
	}
	return out, nil
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// logFile names where the i-th log goes in the bundle.
func logFile(i int, l postmortem.Log) string {
	dir := "db"
	switch l.Kind {
	case postmortem.KindKernel:
		dir = "kernel"
	case postmortem.KindService:
		dir = "service"
	}
	base := unsafeChars.ReplaceAllString(filepath.Base(strings.Fields(l.Source + " x")[0]), "_")
	return fmt.Sprintf("logs/%s/%02d-%s.txt", dir, i, base)
}

// redactLog prepares a log for the bundle: kernel logs keep only their OOM
// reports and unit lines, service logs (the journal's systemd, oomd,
// earlyoom and kubelet lines, syslog) only their unit and killer lines,
// without passwords; database logs lose passwords, and query texts unless
// withQueries.
func redactLog(l postmortem.Log, withQueries bool) (postmortem.Log, *logredact.LogCounts) {
	if l.State != postmortem.StateRead {
		return l, nil
	}
	var r logredact.LogCounts
	switch l.Kind {
	case postmortem.KindKernel:
		loc, _ := postmortem.ParseZone(l.Zone)
		return postmortem.KernelExcerpt(l, loc), nil
	case postmortem.KindService:
		loc, _ := postmortem.ParseZone(l.Zone)
		l = postmortem.KernelExcerpt(l, loc)
		l.Text, r = logredact.PostgresLog(l.Text, false)
	case postmortem.KindMySQL:
		l.Text, r = logredact.MySQLLog(l.Text, withQueries)
	default:
		l.Text, r = logredact.PostgresLog(l.Text, withQueries)
	}
	return l, &r
}
