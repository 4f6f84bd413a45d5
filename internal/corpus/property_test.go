package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// complete are the complete files the property test takes lines from: this
// machine's, and the complete ones people posted.
var complete = []struct {
	input, base string
}{
	{"meminfo/m18-this-host-6.18.txt", BaseMinimal},
	{"meminfo/m06-procfs-stats-1g-full.txt", BaseMinimal},
	{"meminfo/m07-falcon-16g-full.txt", BaseMinimal},
	{"status/s05-this-host-pg15-checkpointer.txt", BasePG15Off},
	{"smaps_rollup/r04-this-host-pg15-checkpointer.txt", BasePG15Off},
}

// TestRemovingALineNeverMakesAZero removes each line of each complete file
// in turn and runs the result through report (text and JSON) and the
// exporter. Against the complete file: the JSON fields the line fed are
// gone (unknown), no JSON number and no metric sample that was not 0
// becomes 0, and the report text shows no more zeros than before.
func TestRemovingALineNeverMakesAZero(t *testing.T) {
	cases := 0
	for _, f := range complete {
		b, err := os.ReadFile(filepath.Join(partialDir, f.input))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		full := propertyRun(t, f.input, f.base, string(b))
		for i, line := range lines {
			if strings.TrimSpace(line) == "" {
				continue
			}
			cases++
			cut := strings.Join(lines[:i], "") + strings.Join(lines[i+1:], "")
			got := propertyRun(t, f.input, f.base, cut)
			kind, _, _ := strings.Cut(f.input, "/")
			for _, msg := range compare(full, got, fedBy(t, f.input, line), kind) {
				t.Errorf("%s without line %d %q: %s", f.input, i+1, strings.TrimSpace(line), msg)
			}
		}
	}
	t.Logf("%d files, %d lines removed one at a time", len(complete), cases)
}

// observed is what one run said, flattened for comparison.
type observed struct {
	json    map[string]float64 // report --json numbers by path
	metrics map[string]float64 // exporter samples by series
	zeros   int                // zero figures in the report text
}

// propertyRun writes content as the input and observes every output.
func propertyRun(t *testing.T, input, base, content string) observed {
	t.Helper()
	dir := t.TempDir()
	alt := filepath.Join(dir, "input")
	if err := os.MkdirAll(filepath.Join(alt, filepath.Dir(input)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(alt, input), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "tree")
	if err := Build(Case{Name: input, Inputs: []string{input}, Base: base}, alt, pg15OffDir, root); err != nil {
		t.Fatal(err)
	}
	c := Case{Name: input, Base: base}
	o := runTree(t, c, root)
	if o.takeErr != nil {
		t.Fatalf("%s: %v", input, o.takeErr)
	}
	obs := observed{json: map[string]float64{}, metrics: samples(o.metrics), zeros: countZeros(o.text)}
	flatten("", o.doc, obs.json)
	return obs
}

// compare lists what changed wrongly from full to cut; fed are the JSON
// field names the removed line fed.
func compare(full, cut observed, fed []string, kind string) []string {
	var out []string
	for path, v := range cut.json {
		if was, ok := full.json[path]; v == 0 && (!ok || was != 0) && !volatileJSON(path) {
			out = append(out, fmt.Sprintf("JSON %s became 0 (was %v, present %v)", path, was, ok))
		}
		for _, f := range fed {
			if strings.HasSuffix(path, "."+f) && fedPath(path, kind) {
				out = append(out, fmt.Sprintf("JSON %s is still there (%v) though its line was removed", path, v))
			}
		}
	}
	for series, v := range cut.metrics {
		if was, ok := full.metrics[series]; v == 0 && (!ok || was != 0) && !volatileMetric(series) {
			out = append(out, fmt.Sprintf("metric %s became 0 (was %v, present %v)", series, was, ok))
		}
	}
	if cut.zeros > full.zeros {
		out = append(out, fmt.Sprintf("the report text shows %d zeros, %d with the line", cut.zeros, full.zeros))
	}
	sort.Strings(out)
	return out
}

// fedBy returns the JSON fields the line feeds: parsed alone, the line
// gives them (a line dbmem does not read gives none).
func fedBy(t *testing.T, input, line string) []string {
	var v any
	switch kind, _, _ := strings.Cut(input, "/"); kind {
	case "meminfo":
		m, err := linux.ParseMeminfo(strings.NewReader(line))
		if err != nil {
			return nil
		}
		m.MemAvailableEstimateBytes = nil // derived, not fed
		v = m
	case "status":
		s, _ := linux.ParseStatus(strings.NewReader(line))
		v = s
	case "smaps_rollup":
		r, err := linux.ParseSmapsRollup(strings.NewReader("Rss: 1 kB\nPss: 1 kB\n" + line))
		if err != nil {
			return nil
		}
		v = r
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	var out []string
	for k, x := range m {
		if n, ok := x.(float64); ok && (n != 0 || strings.HasSuffix(k, "_bytes") || strings.HasPrefix(k, "huge_pages")) {
			out = append(out, k)
		}
	}
	if strings.HasPrefix(input, "smaps_rollup") {
		out = without(out, "rss_bytes", "pss_bytes")
	}
	return out
}

// fedPath says whether a JSON path is one an input of kind feeds: the
// host's meminfo, or the backend's own status or rollup.
func fedPath(path, kind string) bool {
	switch kind {
	case "meminfo":
		return strings.HasPrefix(path, "snapshot.host.meminfo.")
	case "status":
		return strings.Contains(path, ".pid="+Backend+".status.")
	}
	return strings.Contains(path, ".pid="+Backend+".smaps_rollup.")
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		if !contains1(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

func contains1(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// flatten collects the numbers of a decoded JSON document by path; array
// elements that have a "pid" are named by it (pid=N) so that order does not
// matter.
func flatten(prefix string, v any, out map[string]float64) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+"."+k, e, out)
		}
	case []any:
		for i, e := range x {
			key := fmt.Sprint(i)
			if m, ok := e.(map[string]any); ok && m["pid"] != nil {
				key = "pid=" + jsonText(m["pid"])
			}
			flatten(prefix+"."+key, e, out)
		}
	case float64:
		out[strings.TrimPrefix(prefix, ".")] = x
	}
}

// samples reads an exposition into series -> value.
func samples(exposition string) map[string]float64 {
	out := map[string]float64{}
	for _, l := range strings.Split(exposition, "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		var v float64
		fmt.Sscan(l[i+1:], &v)
		out[l[:i]] = v
	}
	return out
}

// zeroWord matches a figure that is zero as the report prints it: "0",
// "0%", "0.0%", the "0" of "0 B".
var zeroWord = regexp.MustCompile(`^0(\.0+)?%?$`)

func countZeros(text string) int {
	n := 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return strings.ContainsRune(" \t\n(),;=:", r) }) {
		if zeroWord.MatchString(w) {
			n++
		}
	}
	return n
}

// volatileJSON are figures that depend on when and how fast the run was,
// not on the input.
func volatileJSON(path string) bool {
	return strings.HasSuffix(path, "elapsed_ns")
}

func volatileMetric(series string) bool {
	return strings.Contains(series, "duration_seconds") || strings.Contains(series, "cpu_seconds")
}
