package watch

import (
	"github.com/dbmem/dbmem/internal/units"

	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
)

// backendView is what RenderOptions say of the per-backend view.
type backendView struct {
	rows     int // lines of backends shown
	selected int // PID of the selected backend (0: the first)
	keys     bool
	xray     []string
}

// backendLines lays out the per-backend view: most expensive first, the
// selected backend marked, the query last, inert and cut to the width.
func backendLines(f Frame, width int, v backendView) []line {
	if len(f.Backends) == 0 || v.rows <= 0 {
		return nil
	}
	rows := f.Backends
	if len(rows) > v.rows {
		rows = windowAround(rows, v.rows, v.selected)
	}
	// The query takes what the other columns leave, at least 24 columns.
	tableWidth := 0
	if width > 0 {
		tableWidth = max(width-24, 1)
	}
	t := texttable.New(">PID", ">PORT", "ROLE", "USER", "DATABASE", "STATE", ">AGE", "QSTART", ">PRIVATE").Fit(tableWidth).
		Drop("PORT", "ROLE", "DATABASE", "QSTART")
	for _, b := range rows {
		t.Add(strconv.Itoa(b.PID), units.OptInt(b.Port, units.UnknownCell), shortRole(b.Role), b.User, b.Database, shortState(b.State), since(f.At, b.BackendStart),
			clock(b.QueryStart), approx(b.PrivateBytes, b.Exact))
	}
	lines := t.Lines("")
	head := fmt.Sprintf("BACKENDS  %d, most expensive first (~: RssAnon-based estimate)", len(f.Backends))
	if v.keys {
		head += "; j/k select, x X-rays"
	}
	out := []line{{head, sgrBold}}
	for i, l := range lines {
		if i >= 1+len(rows) { // Fit's note on the columns left out: the terminal's width, not the table's
			out = append(out, line{"  " + strings.Replace(l, fmt.Sprintf("at %d columns", tableWidth), fmt.Sprintf("at %d columns", width), 1), ""})
			continue
		}
		q := "QUERY"
		mark, color := "  ", ""
		if i > 0 {
			b := rows[i-1]
			q = oneLine(b.Query)
			if v.keys && b.PID == selectedPID(f.Backends, v.selected) {
				mark, color = "> ", sgrReverse
			}
		}
		out = append(out, line{cutTo(mark+l+"  "+q, width), color})
	}
	if len(v.xray) > 0 {
		out = append(out, plain(v.xray)...)
	}
	return out
}

// selectedPID is the selected backend, or the first when none is (or it
// is gone).
func selectedPID(bs []Backend, pid int) int {
	for _, b := range bs {
		if b.PID == pid {
			return pid
		}
	}
	if len(bs) > 0 {
		return bs[0].PID
	}
	return 0
}

// windowAround returns n backends from the top, or around the selected one
// when it is further down.
func windowAround(bs []Backend, n, pid int) []Backend {
	at := 0
	for i, b := range bs {
		if b.PID == pid {
			at = i
		}
	}
	start := max(0, min(at-n/2, len(bs)-n))
	if at < n {
		start = 0
	}
	return bs[start : start+n]
}

// cutTo cuts a line to width columns (0: no limit).
func cutTo(s string, width int) string {
	if width <= 0 {
		return s
	}
	return texttable.Cut(s, width)
}

// oneLine is a query on one line: whitespace runs are one space, and
// anything a terminal would act on is escaped.
func oneLine(q string) string {
	return inert.Text(strings.Join(strings.Fields(q), " "))
}

func shortRole(r string) string {
	r = strings.TrimSuffix(strings.TrimSuffix(r, " backend"), " worker")
	if r == "" {
		return "-"
	}
	return r
}

func shortState(s string) string {
	s = strings.Replace(s, "idle in transaction", "idle in tx", 1)
	if s == "" {
		return "-"
	}
	return s
}

// since is a compact age: 42s, 3m05s, 2h05m, 3d04h.
func since(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := max(now.Sub(t), 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours())/24, int(d.Hours())%24)
}

func clock(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.Local().Format("15:04:05")
}
