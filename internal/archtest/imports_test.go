package archtest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/dbmem/dbmem/internal/"

// goBinary finds the go command: go test puts GOROOT/bin first in PATH.
func goBinary(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command, to list imports: %v", err)
	}
	return p
}

// deps lists the internal packages pkg depends on, directly or not
// (without pkg itself), as `go list -deps` prints them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command(goBinary(t), "list", "-deps", module+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var in []string
	for _, l := range strings.Fields(string(out)) {
		if p, ok := strings.CutPrefix(l, module); ok && p != pkg {
			in = append(in, p)
		}
	}
	return in
}

// TestFloors: packages that must not depend on others, whatever imports
// they gain (docs/DEVELOPING.md, "Architecture").
func TestFloors(t *testing.T) {
	for _, c := range []struct {
		pkg    string
		never  []string
		reason string
	}{
		{"linux", []string{"dblog", "oomlog", "loglines", "logredact", "unitlog"},
			"the kernel readers import no log parser (redact, which linux uses for titles, holds no log code)"},
		{"redact", []string{"dblog", "oomlog", "loglines"}, "redact is below the log parsers; logredact is above them"},
		{"exporter", []string{"watch", "termtest"}, "the exporter samples through snapshot/sampler, never the terminal view"},
		{"snapshot/sampler", []string{"watch", "exporter", "report", "render"}, "the sampler is below every view"},
	} {
		d := deps(t, c.pkg)
		for _, n := range c.never {
			if slices.Contains(d, n) {
				t.Errorf("internal/%s depends on internal/%s: %s", c.pkg, n, c.reason)
			}
		}
	}
}

// TestLightPackages: the renderer of settings files and the types of
// findings stay light, whatever the engines behind them import.
func TestLightPackages(t *testing.T) {
	for _, c := range []struct {
		pkg string
		max int
	}{
		{"render", 4},  // finding, inert, units (and texttable)
		{"finding", 0}, // a leaf
	} {
		if d := deps(t, c.pkg); len(d) > c.max {
			t.Errorf("internal/%s depends on %d internal packages, at most %d: %v", c.pkg, len(d), c.max, d)
		}
	}
}
