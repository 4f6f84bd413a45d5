package postmortem

import (
	"bytes"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/unitlog"
)

// KernelExcerpt keeps only what the post-mortem reads of a kernel or
// service log, as a bundle stores them: the lines of a kernel log's OOM
// reports, and of either kind the service manager's and the other
// killers' lines (unitExcerpt; RHEL's /var/log/messages holds systemd's
// lines beside the kernel's). The rest (other programs' messages, hardware
// and network events, sessions) is not dbmem's to copy. Parsing the
// excerpt gives the same reports and unit events. Other logs are returned
// as is.
func KernelExcerpt(l Log, def *time.Location) Log {
	if (l.Kind != KindKernel && l.Kind != KindService) || l.State != StateRead || l.Excerpt {
		return l
	}
	var b strings.Builder
	for _, line := range unitExcerpt(l, def) {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if l.Kind == KindKernel {
		events, _ := parseKernelLog(l, def, 0)
		for _, e := range events {
			for _, line := range e.Lines {
				b.WriteString(line)
				b.WriteByte('\n')
			}
		}
	}
	l.Text, l.Excerpt = []byte(b.String()), true
	return l
}

// unitExcerpt is what parseUnits reads of a log (unitlog.Excerpt).
func unitExcerpt(l Log, def *time.Location) []string {
	lines, _ := unitlog.Options{Location: l.location(def)}.Excerpt(bytes.NewReader(l.Text)) // from memory: no error
	return lines
}
