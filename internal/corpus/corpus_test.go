package corpus

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/advise"
)

// TestCorpus runs every case of expectations.txt through report, check,
// plan and the exporter and checks each expectation.
func TestCorpus(t *testing.T) {
	cases := readCases(t)
	if len(cases) < 30 {
		t.Fatalf("%d cases in expectations.txt: the corpus is meant to hold more", len(cases))
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			o := run(t, c)
			for _, w := range c.Want {
				if msg := check(w, o); msg != "" {
					t.Errorf("expectations.txt:%d %s %s: %s", w.Line, w.Kind, w.Arg, msg)
				}
			}
			if t.Failed() && o.takeErr == nil {
				t.Logf("report:\n%s", o.text)
			}
		})
	}
}

// check returns why w does not hold, "" when it does.
func check(w Want, o outputs) string {
	if o.takeErr != nil {
		if w.Kind == "refuse" && strings.Contains(o.takeErr.Error(), w.Arg) {
			return ""
		}
		return "refused: " + o.takeErr.Error()
	}
	switch w.Kind {
	case "accept", "dba":
		return ""
	case "refuse":
		return "accepted"
	case "json":
		return checkJSON(o.doc, w.Arg)
	case "text", "notext":
		// Blanks are collapsed: a table's alignment is not what is checked.
		return contains(squeeze(o.text), squeeze(w.Arg), w.Kind == "text", "report text")
	case "notseen":
		return contains(o.notSeen, w.Arg, true, "NOT SEEN")
	case "skip", "noskip":
		return checkSkip(o.judged, w.Arg, w.Kind == "skip")
	case "finding", "nofinding":
		return checkFinding(o.judged, w.Arg, w.Kind == "finding")
	case "plan", "plantext":
		return checkPlan(o, w)
	case "metric", "nometric":
		return checkMetric(o.metrics, w.Arg, w.Kind == "metric")
	}
	return "unknown expectation"
}

func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }

func contains(s, sub string, want bool, what string) string {
	switch has := strings.Contains(s, sub); {
	case want && !has:
		return what + " does not say it"
	case !want && has:
		return what + " says it"
	}
	return ""
}

func checkSkip(r advise.Result, id string, want bool) string {
	for _, s := range r.Skipped {
		if s.ID == id {
			if want {
				return ""
			}
			return fmt.Sprintf("skipped (no %s)", strings.Join(s.Missing, ", "))
		}
	}
	if want {
		return fmt.Sprintf("not skipped; skipped: %v", r.Skipped)
	}
	return ""
}

func checkFinding(r advise.Result, arg string, want bool) string {
	id, sev, _ := strings.Cut(arg, " ")
	for _, f := range r.Findings {
		if f.ID != id {
			continue
		}
		switch {
		case !want:
			return "reported: " + f.Title
		case sev != "" && f.Severity.String() != sev:
			return fmt.Sprintf("at %s: %s", f.Severity, f.Title)
		}
		return ""
	}
	if want {
		return fmt.Sprintf("not reported (skipped: %v)", r.Skipped)
	}
	return ""
}

func checkPlan(o outputs, w Want) string {
	if w.Kind == "plantext" {
		if o.planErr != nil {
			return "no plan: " + o.planErr.Error()
		}
		return contains(o.planText, w.Arg, true, "plan text")
	}
	verb, text, _ := strings.Cut(w.Arg, " ")
	switch {
	case verb == "accept" && o.planErr != nil:
		return "refused: " + o.planErr.Error()
	case verb == "refuse" && o.planErr == nil:
		return "planned"
	case verb == "refuse" && !strings.Contains(o.planErr.Error(), text):
		return "refused with: " + o.planErr.Error()
	}
	return ""
}

// checkMetric looks for the sample "NAME{LABELS} VALUE" (metric) or the
// absence of any sample "NAME{LABELS}" (nometric; without labels: no
// sample of that name at all). Series are compared as Prometheus does: by
// name and label set, a label with an empty value being no label.
func checkMetric(exposition, arg string, want bool) string {
	wantName, wantLabels, value, err := parseSample(arg)
	if err != nil {
		return "bad expectation: " + err.Error()
	}
	for _, l := range strings.Split(exposition, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, labels, v, err := parseSample(l)
		if err != nil {
			return "exposition line " + l + ": " + err.Error()
		}
		if name != wantName || (len(wantLabels) > 0 || want) && !maps.Equal(labels, wantLabels) {
			continue
		}
		switch {
		case !want:
			return "sent: " + l
		case value != "" && v != value:
			return "sent with value " + v
		}
		return ""
	}
	if want {
		return "not sent"
	}
	return ""
}

// parseSample splits `name{a="x",b="y"} value` into its name, its labels
// with a value (escapes kept as written) and the value ("" if none).
func parseSample(s string) (string, map[string]string, string, error) {
	name, rest := s, ""
	if i := strings.IndexAny(s, "{ "); i >= 0 {
		name, rest = s[:i], s[i:]
	}
	labels := map[string]string{}
	if strings.HasPrefix(rest, "{") {
		rest = rest[1:]
		for !strings.HasPrefix(rest, "}") {
			k, after, ok := strings.Cut(rest, "=\"")
			if !ok {
				return "", nil, "", fmt.Errorf("no label value in %q", rest)
			}
			end := closingQuote(after)
			if end < 0 {
				return "", nil, "", fmt.Errorf("unterminated label value in %q", after)
			}
			if v := after[:end]; v != "" {
				labels[strings.TrimPrefix(k, ",")] = v
			}
			rest = after[end+1:]
			rest = strings.TrimPrefix(rest, ",")
		}
		rest = rest[1:]
	}
	return name, labels, strings.TrimSpace(rest), nil
}

// closingQuote is the index of the quote that ends a label value, past
// backslash escapes; -1 if none.
func closingQuote(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// checkJSON compares PATH=VALUE with the report's JSON; VALUE "absent"
// means the key must not be there (unknown is omitted, never 0).
func checkJSON(doc any, arg string) string {
	i := strings.LastIndex(arg, "=")
	if i < 0 {
		return "want PATH=VALUE"
	}
	path, want := arg[:i], arg[i+1:]
	v, ok := lookup(doc, strings.Split(path, "."))
	switch {
	case want == "absent" && ok:
		return fmt.Sprintf("present: %v", v)
	case want == "absent":
		return ""
	case !ok:
		return "absent"
	}
	if got := jsonText(v); got != want {
		return "is " + got
	}
	return ""
}

func jsonText(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// lookup follows a path of object keys, array indexes and "pid=N"
// selectors (the element of an array whose "pid" is N).
func lookup(v any, path []string) (any, bool) {
	for _, seg := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil, false
			}
		case []any:
			next, ok := element(x, seg)
			if !ok {
				return nil, false
			}
			v = next
		default:
			return nil, false
		}
	}
	return v, true
}

func element(a []any, seg string) (any, bool) {
	if k, want, ok := strings.Cut(seg, "="); ok {
		for _, e := range a {
			if m, ok := e.(map[string]any); ok && jsonText(m[k]) == want {
				return e, true
			}
		}
		return nil, false
	}
	i, err := strconv.Atoi(seg)
	if err != nil || i < 0 || i >= len(a) {
		return nil, false
	}
	return a[i], true
}

// TestCheckMetric: samples are matched by name and label set (a space in a
// label value, an empty label, another label order), and a nometric
// without labels refuses every sample of the name.
func TestCheckMetric(t *testing.T) {
	exp := "# HELP x y\n" +
		`dbmem_p{port="5432",role="client backend",server_pid=""} 10` + "\n" +
		`dbmem_q{a="1"} 2` + "\n"
	for _, c := range []struct {
		arg  string
		want bool
		fail bool
	}{
		{`dbmem_p{role="client backend",port="5432"} 10`, true, false},
		{`dbmem_p{role="client backend",port="5432"} 11`, true, true},
		{`dbmem_p{role="client backend"} 10`, true, true},
		{`dbmem_p{port="5432",role="client backend"}`, false, true},
		{`dbmem_p{port="5433",role="client backend"}`, false, false},
		{`dbmem_q`, false, true},
		{`dbmem_r`, false, false},
		{`dbmem_r{a="1"} 2`, true, true},
	} {
		if got := checkMetric(exp, c.arg, c.want); (got != "") != c.fail {
			t.Errorf("checkMetric(%q, %v) = %q, want failure %v", c.arg, c.want, got, c.fail)
		}
	}
}
