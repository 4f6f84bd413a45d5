package watch

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// RenderOptions shape the text.
type RenderOptions struct {
	Color bool
	// Width fits tables and lines to the terminal's width (texttable.Fit
	// and texttable.Wrap; 0: no limit).
	Width int
	// Checking says whether findings are computed at all, so that "none"
	// is not shown when nothing looked.
	Checking bool
	// Status is the line of keys and their state, on a terminal (keys.go).
	Status string
	// Help, when set, is shown first: the keys explained.
	Help []string
	// Sort orders the instance table by one of sortKeys ("": as found).
	Sort string
	// Backends is how many lines of the per-backend view to show (0:
	// none); Selected the PID of the selected backend; XRay the lines of
	// the last X-ray shown below it.
	Backends int
	Selected int
	XRay     []string
}

// line is one line of output and how to colour it.
type line struct {
	text  string
	color string // ANSI SGR parameters, "" for none
}

const (
	sgrBold    = "1"
	sgrReverse = "7"
	sgrRed     = "31"
	sgrYellow  = "33"
	sgrCyan    = "36"
)

// Render writes the frame as text, one line per "\n".
func Render(w io.Writer, f Frame, o RenderOptions) error {
	var ls []line
	if o.Status != "" {
		ls = append(ls, line{o.Status, sgrReverse})
	}
	for _, h := range o.Help {
		ls = append(ls, line{h, sgrCyan})
	}
	ls = append(ls, headLines(f)...)
	bv := backendView{rows: o.Backends, selected: o.Selected, keys: o.Status != "", xray: o.XRay}
	if len(o.XRay) > 0 { // the X-ray takes the screen: a few backends, then it
		bv.rows = min(bv.rows, 5)
		ls = append(ls, backendLines(f, o.Width, bv)...)
	} else {
		ls = append(ls, hostLines(f.Host, f.Tick)...)
		ls = append(ls, instanceLines(f, o.Width, o.Sort)...)
		ls = append(ls, mysqlLines(f, o.Width)...)
		ls = append(ls, backendLines(f, o.Width, bv)...)
		ls = append(ls, growthLines(f)...)
		ls = append(ls, topLines(f, o.Width)...)
		ls = append(ls, findingLines(f, o.Checking)...)
	}
	var b strings.Builder
	for _, l := range ls {
		for _, t := range strings.Split(texttable.Wrap(l.text, o.Width), "\n") {
			if o.Color && l.color != "" {
				t = "\x1b[" + l.color + "m" + t + "\x1b[0m"
			}
			b.WriteString(t + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func headLines(f Frame) []line {
	h := fmt.Sprintf("dbmem watch  %s  %s  tick %d: %s, %s CPU, %s wall", inert.Text(f.Host.Hostname),
		f.At.Local().Format("2006-01-02 15:04:05 MST"), f.Tick, f.Mode, ms(f.Cost.CPU), ms(f.Cost.Wall))
	s := "  smaps_rollup not read yet: private costs are RssAnon-based estimates (~)"
	if f.LastSmaps != nil {
		s = fmt.Sprintf("  last smaps_rollup pass %s ago: %s CPU, %s wall", age(f.At, f.LastSmaps.At),
			ms(f.LastSmaps.Cost.CPU), ms(f.LastSmaps.Cost.Wall))
	}
	ls := []line{{h, sgrBold}, {s, ""}}
	if len(f.Gaps) > 0 {
		more := ""
		if len(f.Gaps) > 1 {
			more = fmt.Sprintf(" (+%d more: dbmem report lists them)", len(f.Gaps)-1)
		}
		ls = append(ls, line{"  not read: " + inert.Text(f.Gaps[0].String()) + more, sgrYellow})
	}
	return ls
}

func ms(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

func age(now, then time.Time) string {
	if then.IsZero() {
		return "-"
	}
	return now.Sub(then).Round(time.Second).String()
}

func signed(d *int64) string {
	switch {
	case d == nil:
		return units.Unknown
	case *d < 0:
		return "-" + units.Bytes(uint64(-*d))
	}
	return "+" + units.Bytes(uint64(*d))
}

func hostLines(h HostFrame, tick int) []line {
	avail := units.OptBytes(h.MemAvailableBytes)
	if h.MemAvailableEstimated {
		avail += " (estimate: no MemAvailable in this kernel)"
	}
	l := line{fmt.Sprintf("HOST  MemAvailable %s of %s (%s)", avail,
		units.OptBytes(h.MemTotalBytes), units.OptPercent(h.MemAvailableBytes, h.MemTotalBytes)), ""}
	if tick > 1 {
		l.text += ", " + signed(h.MemAvailableDelta) + " since the last tick"
	}
	if h.MemTotalBytes != nil && h.MemAvailableBytes != nil && *h.MemAvailableBytes < *h.MemTotalBytes/10 {
		l.color = sgrRed
	}
	return []line{l, commitLine(h), swapLine(h), hugeLine(h)}
}

func commitLine(h HostFrame) line {
	mode, enforced := units.Unknown, "unknown"
	if m := h.OvercommitMemory; m != nil {
		mode, enforced = strconv.FormatInt(*m, 10), "not enforced"
		if *m == 2 {
			enforced = "enforced"
		}
	}
	l := line{fmt.Sprintf("      PageTables %s   Committed_AS %s of CommitLimit %s (%s; overcommit_memory=%s: %s)",
		units.OptBytes(h.PageTablesBytes), units.OptBytes(h.CommittedASBytes), units.OptBytes(h.CommitLimitBytes),
		units.OptPercent(h.CommittedASBytes, h.CommitLimitBytes), mode, enforced), ""}
	if enforced == "enforced" && h.CommittedASBytes != nil && h.CommitLimitBytes != nil &&
		*h.CommittedASBytes > *h.CommitLimitBytes/10*9 {
		l.color = sgrRed
	}
	return l
}

func swapLine(h HostFrame) line {
	s := "      Swap unknown"
	switch {
	case h.SwapTotalBytes != nil && *h.SwapTotalBytes == 0:
		s = "      Swap none"
	case h.SwapTotalBytes != nil:
		s = fmt.Sprintf("      Swap %s used of %s", units.OptBytes(h.SwapUsedBytes), units.Bytes(*h.SwapTotalBytes))
	}
	l := line{s, ""}
	if h.Rates {
		l.text += fmt.Sprintf(", in %.0f out %.0f pages/s", h.SwapInPerSec, h.SwapOutPerSec)
		if h.SwapInPerSec+h.SwapOutPerSec > 0 {
			l.color = sgrYellow
		}
	}
	if h.OOMKills == nil {
		l.text += "   OOM kills since boot unknown"
		return l
	}
	l.text += fmt.Sprintf("   OOM kills since boot %d", *h.OOMKills)
	if h.OOMKillsNew != nil && *h.OOMKillsNew > 0 {
		l.text += fmt.Sprintf(" (%d during this watch)", *h.OOMKillsNew)
		l.color = sgrRed
	}
	return l
}

func hugeLine(h HostFrame) line {
	var parts []string
	for _, p := range h.HugePages {
		parts = append(parts, fmt.Sprintf("%s: %d of %d in use", units.Bytes(p.PageSizeBytes), p.InUse, p.Total))
	}
	if len(parts) == 0 {
		parts = []string{"no pools"}
	}
	return line{"      Huge pages " + strings.Join(parts, ", "), ""}
}

func severityColor(s finding.Severity) string {
	switch s {
	case finding.Critical:
		return sgrRed + ";" + sgrBold
	case finding.Warning:
		return sgrYellow
	case finding.Notice:
		return sgrCyan
	}
	return ""
}
