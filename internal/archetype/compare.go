package archetype

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Finding and Setting are read from the JSON dbmem writes (dbmem.check/v1
// findings, dbmem.plan/v1 settings), so the comparison does not depend on
// advise's Go types.
type Finding struct {
	ID       string `json:"id"`
	Severity string `json:"severity"`
	Subject  string `json:"subject"`
	Title    string `json:"title"`
	Evidence []struct {
		Name, Value, Source string
	} `json:"evidence"`
	Why string `json:"why"`
	Fix string `json:"fix"`
}

// Setting is one planned setting.
type Setting struct {
	Target string `json:"target"`
	Name   string `json:"name"`
	Value  string `json:"value"`
}

// Plan is the part of a plan the expectations look at.
type Plan struct {
	Settings   []Setting `json:"settings"`
	Notes      []string  `json:"notes"`
	Overcommit *struct {
		CommitLimitBytes uint64 `json:"commit_limit_bytes"`
	} `json:"overcommit"`
}

// Decode turns findings and a plan (any values that marshal to dbmem's
// JSON) into the forms compared here.
func Decode(findings, plan any) ([]Finding, Plan, error) {
	var fs []Finding
	var p Plan
	b, err := json.Marshal(findings)
	if err == nil {
		err = json.Unmarshal(b, &fs)
	}
	if err != nil {
		return nil, p, err
	}
	if b, err = json.Marshal(plan); err == nil {
		err = json.Unmarshal(b, &p)
	}
	return fs, p, err
}

var severityRank = map[string]int{"info": 0, "notice": 1, "warning": 2, "critical": 3}

func (f Finding) text() string {
	var b strings.Builder
	b.WriteString(f.Title + "\n" + f.Why + "\n" + f.Fix + "\n")
	for _, e := range f.Evidence {
		b.WriteString(e.Name + " " + e.Value + "\n")
	}
	return strings.ToLower(b.String())
}

// CompareCheck returns the mismatches between findings and the expectation.
func CompareCheck(fs []Finding, e CheckExpect) []string {
	var out []string
	for _, x := range e.Raise {
		f, ok := findFinding(fs, x)
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("missing finding %s (%s): %s", x.ID, x.Severity, x.Why))
		case f.Severity != x.Severity:
			out = append(out, fmt.Sprintf("finding %s is %s, want %s: %s", x.ID, f.Severity, x.Severity, x.Why))
		}
		if ok {
			out = append(out, wording(f, x)...)
		}
	}
	for _, x := range e.NotRaise {
		if f, ok := findFinding(fs, x); ok {
			out = append(out, fmt.Sprintf("finding %s (%s) must not be raised: %s", x.ID, f.Severity, x.Why))
		}
	}
	for _, f := range fs {
		out = append(out, unexpected(f, e)...)
	}
	return out
}

func findFinding(fs []Finding, x FindingExpect) (Finding, bool) {
	for _, f := range fs {
		if f.ID == x.ID && strings.Contains(strings.ToLower(f.Subject), strings.ToLower(x.Subject)) {
			return f, true
		}
	}
	return Finding{}, false
}

func wording(f Finding, x FindingExpect) []string {
	var out []string
	t := f.text()
	for _, w := range x.Says {
		if !strings.Contains(t, strings.ToLower(w)) {
			out = append(out, fmt.Sprintf("finding %s does not say %q: %s", x.ID, w, x.Why))
		}
	}
	for _, w := range x.NeverSays {
		if strings.Contains(t, strings.ToLower(w)) {
			out = append(out, fmt.Sprintf("finding %s says %q: %s", x.ID, w, x.Why))
		}
	}
	return out
}

// unexpected reports a finding at notice or above that the expectation
// neither requires nor allows, or one above its allowed severity.
func unexpected(f Finding, e CheckExpect) []string {
	for _, x := range e.Raise {
		if x.ID == f.ID {
			return nil
		}
	}
	for _, x := range e.Allow {
		if x.ID == f.ID {
			if severityRank[f.Severity] > severityRank[x.Severity] {
				return []string{fmt.Sprintf("finding %s is %s, allowed at most %s", f.ID, f.Severity, x.Severity)}
			}
			return nil
		}
	}
	if severityRank[f.Severity] >= severityRank["notice"] {
		return []string{fmt.Sprintf("unexpected finding %s (%s): %s", f.ID, f.Severity, f.Title)}
	}
	return nil
}

// ComparePlan returns the mismatches between a plan and the expectation.
func ComparePlan(p Plan, e PlanExpect) []string {
	var out []string
	for _, x := range e.Settings {
		out = append(out, compareSetting(p.Settings, x)...)
	}
	if p.Overcommit != nil {
		gib := float64(p.Overcommit.CommitLimitBytes) / (1 << 30)
		if e.CommitLimitMaxGiB > 0 && gib > e.CommitLimitMaxGiB {
			out = append(out, fmt.Sprintf("plan promises CommitLimit %.1f GiB, the kernel would give at most %.1f GiB", gib, e.CommitLimitMaxGiB))
		}
		if e.CommitLimitMinGiB > 0 && gib < e.CommitLimitMinGiB {
			out = append(out, fmt.Sprintf("plan's CommitLimit %.1f GiB is below %.1f GiB committed now: fork and malloc would fail", gib, e.CommitLimitMinGiB))
		}
	}
	notes := strings.ToLower(strings.Join(p.Notes, "\n"))
	for _, w := range e.NotesSay {
		if !strings.Contains(notes, strings.ToLower(w)) {
			out = append(out, fmt.Sprintf("plan notes do not say %q", w))
		}
	}
	for _, w := range e.NotesNeverSay {
		if strings.Contains(notes, strings.ToLower(w)) {
			out = append(out, fmt.Sprintf("plan notes say %q", w))
		}
	}
	return out
}

func compareSetting(all []Setting, x SettingExpect) []string {
	var got []Setting
	for _, s := range all {
		if s.Target == x.Target && s.Name == x.Name {
			got = append(got, s)
		}
	}
	name := x.Target + " " + x.Name
	if x.Absent {
		if len(got) > 0 {
			return []string{fmt.Sprintf("plan sets %s = %s, must not: %s", name, got[0].Value, x.Why)}
		}
		return nil
	}
	if len(got) == 0 {
		if x.Value != "" || x.Required {
			return []string{fmt.Sprintf("plan does not set %s (want %s): %s", name, orDefault(x.Value, "a value"), x.Why)}
		}
		return nil
	}
	var out []string
	for _, s := range got {
		if m := checkValue(s.Value, x); m != "" {
			out = append(out, fmt.Sprintf("plan sets %s = %s, %s: %s", name, s.Value, m, x.Why))
		}
	}
	return out
}

func checkValue(v string, x SettingExpect) string {
	if x.Value != "" && v != x.Value {
		return "want " + x.Value
	}
	if x.Not != "" && v == x.Not {
		return "must not be " + x.Not
	}
	if x.Min == nil && x.Max == nil {
		return ""
	}
	n, err := strconv.ParseFloat(v, 64)
	switch {
	case err != nil:
		return "not a number"
	case x.Min != nil && n < *x.Min:
		return fmt.Sprintf("want at least %g", *x.Min)
	case x.Max != nil && n > *x.Max:
		return fmt.Sprintf("want at most %g", *x.Max)
	}
	return ""
}
