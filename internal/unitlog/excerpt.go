package unitlog

import (
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/loglines"
)

// spanning are the programs whose events span lines (earlyoom's limits,
// oomd's pressure, kubelet's evictions): all their lines are kept.
var spanning = map[string]bool{"systemd-oomd": true, "earlyoom": true, "kubelet": true}

// Excerpt returns the lines of a log that Parse needs, in their order:
// every line that is an event (systemd's unit messages, OOM panics, a
// prefix-less paste), every line of systemd-oomd, earlyoom and kubelet,
// and journalctl's first header ("-- Logs begin at ... CST"), which
// carries the zone. What else the log holds (other daemons, sessions,
// the kernel's own lines) is left out: a capture keeps only what the
// post-mortem reads. Lines over 64 KiB are skipped, as Parse skips them.
func (o Options) Excerpt(r io.Reader) ([]string, error) {
	p := &parser{o: o}
	var out []string
	header := false
	_, err := loglines.Read(r, maxLine, func(raw string) {
		n := len(p.out.Units) + len(p.out.Killers)
		id := p.ident(raw)
		switch {
		case len(p.out.Units)+len(p.out.Killers) > n, spanning[id]:
			out = append(out, strings.TrimRight(raw, "\r"))
		case id == "--" && !header && strings.Contains(raw, " begin"):
			header = true
			out = append(out, strings.TrimRight(raw, "\r"))
		}
	})
	return out, err
}
