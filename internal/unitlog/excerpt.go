package unitlog

import (
	"io"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/loglines"
)

// spanning are the programs whose events span lines (earlyoom's limits,
// oomd's pressure, kubelet's evictions): all their lines are kept.
var spanning = map[string]bool{"systemd-oomd": true, "earlyoom": true, "kubelet": true}

// Excerpt returns the lines of a log that Parse needs, in their order:
// every line that is an event (systemd's unit messages, OOM panics, a
// prefix-less paste) or that a later event reads (earlyoom's limits
// without a prefix), every line of systemd-oomd, earlyoom and kubelet,
// and journalctl's first header ("-- Logs begin at ... CST"), which
// carries the zone. What else the log holds (other daemons, sessions,
// the kernel's own lines) is left out: a capture keeps only what the
// post-mortem reads. Lines over 64 KiB are skipped, as Parse skips them.
func (o Options) Excerpt(r io.Reader) ([]string, error) {
	p := &parser{o: o}
	var out []string
	header := false
	_, err := loglines.Read(r, maxLine, func(raw string) {
		n, st := p.found(), p.state()
		id := p.ident(raw)
		switch {
		case p.found() != n, spanning[id], p.state() != st:
			out = append(out, strings.TrimRight(raw, "\r"))
		case id == "--" && !header && strings.Contains(raw, " begin"):
			header = true
			out = append(out, strings.TrimRight(raw, "\r"))
		}
	})
	return out, err
}

// found counts the events and the lines of the last killer event (a
// line may complete it: earlyoom's "kill failed", "escalating to SIGKILL").
func (p *parser) found() [3]int {
	n := [3]int{len(p.out.Units), len(p.out.Killers), 0}
	if k := len(p.out.Killers); k > 0 {
		n[2] = len(p.out.Killers[k-1].Lines)
	}
	return n
}

// state is what the parser carries from one line to the next.
func (p *parser) state() string {
	return strings.Join(append([]string{p.avail, p.limits, p.reclaim, p.pendingSignal, strconv.Itoa(p.evicting)}, p.pressure...), "\x00")
}
