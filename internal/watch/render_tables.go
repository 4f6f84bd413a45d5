package watch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

func plain(ss []string) []line {
	out := make([]line, len(ss))
	for i, s := range ss {
		out[i] = line{s, ""}
	}
	return out
}

func instanceLines(f Frame) []line {
	if len(f.Instances) == 0 {
		return []line{{"POSTGRESQL  no running instance found", sgrBold}}
	}
	t := texttable.New(">PORT", "DATA DIR", ">PROCS", ">CONNS", ">MAX", ">PRIVATE", ">PSS PRIVATE", ">AGE", ">VMPTE", ">SHARED", "PAGE")
	for _, in := range f.Instances {
		pss, ago := "-", "-"
		if in.PssAt != nil {
			pss, ago = units.Short(in.PssPrivateBytes), age(f.At, *in.PssAt)
		}
		t.Add(strconv.Itoa(in.Port), in.DataDir, strconv.Itoa(in.Processes), strconv.Itoa(in.Connections),
			strconv.FormatInt(in.MaxConnections, 10), approx(in.PrivateBytes, in.PrivateExact), pss, ago,
			units.Short(in.VmPTEBytes), units.Short(in.SharedBytes), units.Short(in.SharedPageBytes))
	}
	return append([]line{{"POSTGRESQL  private = Pss_Anon + VmPTE + VmSwap (~: RssAnon instead of Pss_Anon, an over-estimate)", sgrBold}},
		plain(t.Lines("  "))...)
}

// approx marks estimates with "~".
func approx(b uint64, exact bool) string {
	if exact {
		return units.Short(b)
	}
	return "~" + units.Short(b)
}

func topLines(f Frame) []line {
	out := []line{{"TOP BY PRIVATE COST", sgrBold}}
	out = append(out, plain(procTable(f.TopPrivate).Lines("  "))...)
	out = append(out, line{"TOP BY OOM SCORE  (the OOM killer picks the highest)", sgrBold})
	return append(out, plain(procTable(f.TopOOM).Lines("  "))...)
}

func procTable(ps []Proc) *texttable.Table {
	t := texttable.New(">PID", "COMM", "ROLE", ">PRIVATE", ">OOM", ">ADJ")
	for _, p := range ps {
		role := "-"
		if p.Role != "" {
			role = fmt.Sprintf("%s :%d", p.Role, p.Port)
		}
		t.Add(strconv.Itoa(p.PID), p.Comm, role, approx(p.PrivateBytes, p.Exact),
			strconv.Itoa(p.OOMScore), strconv.Itoa(p.OOMScoreAdj))
	}
	return t
}

func findingLines(f Frame, checking bool) []line {
	if !checking {
		return []line{{"FINDINGS  not checked (the diagnose engine is not available in this build)", sgrBold}}
	}
	if len(f.Findings) == 0 {
		return []line{{"FINDINGS  none", sgrBold}}
	}
	out := []line{{fmt.Sprintf("FINDINGS  %d", len(f.Findings)), sgrBold}}
	for _, fs := range f.Findings {
		mark := ""
		if fs.New {
			mark = " NEW"
		}
		text := fmt.Sprintf("  %-8s since %s%s  %s  %s: %s", strings.ToUpper(fs.Severity.String()),
			fs.Since.Local().Format("15:04:05"), mark, fs.ID, inert.Text(fs.Subject), inert.Text(fs.Title))
		out = append(out, line{text, severityColor(fs.Severity)})
	}
	return out
}
