package postmortem

import (
	"strings"
	"time"
)

// KernelExcerpt keeps only the lines of a kernel log's OOM reports, as a
// bundle stores them: the rest of a kernel log (other programs' messages
// relayed by syslog, hardware and network events) is not dbmem's to copy.
// Parsing the excerpt gives the same reports. Other logs are returned as is.
func KernelExcerpt(l Log, def *time.Location) Log {
	if l.Kind != KindKernel || l.State != StateRead || l.Excerpt {
		return l
	}
	var b strings.Builder
	events, _ := parseKernelLog(l, def, 0)
	for _, e := range events {
		for _, line := range e.Lines {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	l.Text, l.Excerpt = []byte(b.String()), true
	return l
}
