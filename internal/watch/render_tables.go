package watch

import (
	"fmt"
	"slices"
	"sort"
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

func instanceLines(f Frame, width int, sortBy string) []line {
	if len(f.Instances) == 0 {
		return []line{{"POSTGRESQL  no running instance found", sgrBold}}
	}
	f.Instances = sortInstances(f.Instances, sortBy)
	t := texttable.New(">PORT", "DATA DIR", ">PROCS", ">CONNS", ">MAX", ">PRIVATE", ">PSS PRIVATE", ">AGE", ">VMPTE", ">SHARED", "PAGE").
		Fit(width).Drop("AGE", "MAX", "PROCS", "PAGE")
	for _, in := range f.Instances {
		pss, ago := "-", "-"
		if in.PssAt != nil {
			pss, ago = units.OptShort(in.PssPrivateBytes), age(f.At, *in.PssAt)
		}
		maxConn := units.UnknownCell
		if in.MaxConnections != nil {
			maxConn = strconv.FormatInt(*in.MaxConnections, 10)
		}
		t.Add(units.OptInt(in.Port, units.UnknownCell), in.DataDir, strconv.Itoa(in.Processes), strconv.Itoa(in.Connections),
			maxConn, approx(in.PrivateBytes, in.PrivateExact), pss, ago,
			units.OptShort(in.VmPTEBytes), units.OptShort(in.SharedBytes), units.OptShort(in.SharedPageBytes))
	}
	return append([]line{{"POSTGRESQL  private = Pss_Anon + VmPTE + VmSwap (~: RssAnon instead of Pss_Anon, an over-estimate; ?: not read)", sgrBold}},
		plain(t.Lines("  "))...)
}

// sortInstances returns the instances ordered by one of sortKeys, the
// largest first for sizes and counts (unknown last); ties and "" keep the
// order found.
func sortInstances(in []Instance, by string) []Instance {
	less := map[string]func(a, b Instance) bool{
		"port":     func(a, b Instance) bool { return smallerOpt(a.Port, b.Port) },
		"private":  func(a, b Instance) bool { return largerOpt(a.PrivateBytes, b.PrivateBytes) },
		"conns":    func(a, b Instance) bool { return a.Connections > b.Connections },
		"vmpte":    func(a, b Instance) bool { return largerOpt(a.VmPTEBytes, b.VmPTEBytes) },
		"shared":   func(a, b Instance) bool { return largerOpt(a.SharedBytes, b.SharedBytes) },
		"data dir": func(a, b Instance) bool { return a.DataDir < b.DataDir },
	}[by]
	if less == nil {
		return in
	}
	out := slices.Clone(in)
	sort.SliceStable(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// largerOpt orders known sizes largest first and unknown ones after them.
func largerOpt(a, b *uint64) bool {
	if a == nil || b == nil {
		return a != nil && b == nil
	}
	return *a > *b
}

// smallerOpt orders known numbers smallest first and unknown ones after
// them.
func smallerOpt(a, b *int) bool {
	if a == nil || b == nil {
		return a != nil && b == nil
	}
	return *a < *b
}

// approx marks estimates with "~" and unknowns with "?".
func approx(b *uint64, exact bool) string {
	if exact || b == nil {
		return units.OptShort(b)
	}
	return "~" + units.Short(*b)
}

func topLines(f Frame, width int) []line {
	out := []line{{"TOP BY PRIVATE COST", sgrBold}}
	out = append(out, plain(procTable(f.TopPrivate).Fit(width).Lines("  "))...)
	out = append(out, line{"TOP BY OOM SCORE  (the OOM killer picks the highest)", sgrBold})
	return append(out, plain(procTable(f.TopOOM).Fit(width).Lines("  "))...)
}

func procTable(ps []Proc) *texttable.Table {
	t := texttable.New(">PID", "COMM", "ROLE", ">PRIVATE", ">OOM", ">ADJ")
	for _, p := range ps {
		role := "-"
		if p.Role != "" {
			role = p.Role + " :" + units.OptInt(p.Port, units.UnknownCell)
		}
		t.Add(strconv.Itoa(p.PID), p.Comm, role, approx(p.PrivateBytes, p.Exact),
			units.OptInt(p.OOMScore, units.UnknownCell), units.OptInt(p.OOMScoreAdj, units.UnknownCell))
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
