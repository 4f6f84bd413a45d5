package cli

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exitRow is a row of an exit code table: | 4 | meaning |
var exitRow = regexp.MustCompile(`(?m)^\| *([0-9]+) *\| *(\S.*)\|$`)

// TestExitCodesDocumented: every exit code dbmem returns is a row of the
// exit code tables of README.md and docs/check-plan.md, and those tables
// list no other code.
func TestExitCodesDocumented(t *testing.T) {
	codes := []int{ExitOK, ExitError, ExitUsage, ExitFindings, ExitRefused}
	docs, err := readDocs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if d.name != "README.md" && d.name != "docs/check-plan.md" {
			continue
		}
		_, table, ok := strings.Cut(d.text, "## Exit codes")
		if !ok {
			t.Errorf("%s: no \"## Exit codes\" section", d.name)
			continue
		}
		table, _, _ = strings.Cut(table, "\n## ")
		got := map[int]bool{}
		for _, m := range exitRow.FindAllStringSubmatch(table, -1) {
			n, _ := strconv.Atoi(m[1])
			got[n] = true
		}
		for _, c := range codes {
			if !got[c] {
				t.Errorf("%s: exit code %d is not in the table", d.name, c)
			}
			delete(got, c)
		}
		for c := range got {
			t.Errorf("%s: exit code %d is documented but dbmem has no such code", d.name, c)
		}
	}
}
