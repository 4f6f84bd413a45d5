package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report --html and check --html write the audit of the host they read
// (here a recorded one), with the plan, and say where; check's JSON
// findings carry the bytes at stake where they are known.
func TestHTMLAudit(t *testing.T) {
	dir := t.TempDir()
	for _, cmd := range []string{"report", "check"} {
		page := filepath.Join(dir, cmd+".html")
		code, _, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), cmd, "--html", page)...)
		if code != ExitOK || !strings.Contains(stderr, "HTML audit: "+page) {
			t.Fatalf("%s --html: exit %d, %s", cmd, code, stderr)
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"written by</th><td>dbmem " + cmd, "Where the RAM goes", "<code>hugepages.off</code>", "<td>vm.nr_hugepages</td>"} {
			if !strings.Contains(string(b), want) {
				t.Errorf("%s --html lacks %q", cmd, want)
			}
		}
	}
	code, out, stderr := run(t, append(fixtureArgs("pg15-hugepages-off"), "--json", "check")...)
	if code != ExitOK {
		t.Fatalf("check --json: exit %d, %s", code, stderr)
	}
	var doc struct {
		Findings []struct {
			ID    string  `json:"id"`
			Stake *uint64 `json:"bytes_at_stake"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range doc.Findings {
		switch {
		case f.ID == "hugepages.off" && (f.Stake == nil || *f.Stake == 0):
			t.Errorf("hugepages.off has no bytes at stake")
		case strings.HasPrefix(f.ID, "oom.") && f.Stake != nil:
			t.Errorf("%s has bytes at stake %d: none is computed", f.ID, *f.Stake)
		}
	}
}
