package watch

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/units"
)

// RenderOptions shape the text.
type RenderOptions struct {
	Color bool
	// Width cuts lines to the terminal's width (0: no limit).
	Width int
	// Checking says whether findings are computed at all, so that "none"
	// is not shown when nothing looked.
	Checking bool
}

// line is one line of output and how to colour it.
type line struct {
	text  string
	color string // ANSI SGR parameters, "" for none
}

const (
	sgrBold   = "1"
	sgrRed    = "31"
	sgrYellow = "33"
	sgrCyan   = "36"
)

// Render writes the frame as text, one line per "\n".
func Render(w io.Writer, f Frame, o RenderOptions) error {
	var ls []line
	ls = append(ls, headLines(f)...)
	ls = append(ls, hostLines(f.Host, f.Tick)...)
	ls = append(ls, instanceLines(f)...)
	ls = append(ls, topLines(f)...)
	ls = append(ls, findingLines(f, o.Checking)...)
	var b strings.Builder
	for _, l := range ls {
		t := cut(l.text, o.Width)
		if o.Color && l.color != "" {
			t = "\x1b[" + l.color + "m" + t + "\x1b[0m"
		}
		b.WriteString(t + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func cut(s string, width int) string {
	if width <= 0 {
		return s
	}
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	return string(r[:width])
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

func signed(d int64) string {
	if d < 0 {
		return "-" + units.Bytes(uint64(-d))
	}
	return "+" + units.Bytes(uint64(d))
}

func hostLines(h HostFrame, tick int) []line {
	avail := line{fmt.Sprintf("HOST  MemAvailable %s of %s (%s)", units.Bytes(h.MemAvailableBytes),
		units.Bytes(h.MemTotalBytes), units.Percent(h.MemAvailableBytes, h.MemTotalBytes)), ""}
	if tick > 1 {
		avail.text += ", " + signed(h.MemAvailableDelta) + " since the last tick"
	}
	if h.MemTotalBytes > 0 && h.MemAvailableBytes < h.MemTotalBytes/10 {
		avail.color = sgrRed
	}
	enforced := "not enforced"
	if h.OvercommitMemory == 2 {
		enforced = "enforced"
	}
	commit := line{fmt.Sprintf("      PageTables %s   Committed_AS %s of CommitLimit %s (%s; overcommit_memory=%d: %s)",
		units.Bytes(h.PageTablesBytes), units.Bytes(h.CommittedASBytes), units.Bytes(h.CommitLimitBytes),
		units.Percent(h.CommittedASBytes, h.CommitLimitBytes), h.OvercommitMemory, enforced), ""}
	if h.OvercommitMemory == 2 && h.CommittedASBytes > h.CommitLimitBytes/10*9 {
		commit.color = sgrRed
	}
	return []line{avail, commit, swapLine(h), hugeLine(h)}
}

func swapLine(h HostFrame) line {
	s := "      Swap none"
	if h.SwapTotalBytes > 0 {
		s = fmt.Sprintf("      Swap %s used of %s", units.Bytes(h.SwapUsedBytes), units.Bytes(h.SwapTotalBytes))
	}
	l := line{s, ""}
	if h.Rates {
		l.text += fmt.Sprintf(", in %.0f out %.0f pages/s", h.SwapInPerSec, h.SwapOutPerSec)
		if h.SwapInPerSec+h.SwapOutPerSec > 0 {
			l.color = sgrYellow
		}
	}
	l.text += fmt.Sprintf("   OOM kills since boot %d", h.OOMKills)
	if h.OOMKillsNew > 0 {
		l.text += fmt.Sprintf(" (%d during this watch)", h.OOMKillsNew)
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

func severityColor(s advise.Severity) string {
	switch s {
	case advise.Critical:
		return sgrRed + ";" + sgrBold
	case advise.Warning:
		return sgrYellow
	case advise.Notice:
		return sgrCyan
	}
	return ""
}
