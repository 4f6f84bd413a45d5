package cli

import (
	"strings"
	"testing"
)

// TestDocsClaimOnlyRealCommandsAndFlags reads README.md and docs/*.md:
// every dbmem command line names commands that exist and gives them only
// their own flags, and every other --flag in code exists in dbmem.
func TestDocsClaimOnlyRealCommandsAndFlags(t *testing.T) {
	docs, err := readDocs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if bad := checkDocClaims(docsCommand(), docs); len(bad) > 0 {
		t.Errorf("%d claims of the docs that dbmem contradicts:\n%s", len(bad), strings.Join(bad, "\n"))
	}
}

// TestDocClaimCheckerFails feeds the checker a page that claims a flag,
// a subcommand's flag on the wrong command and a command that do not
// exist: each is caught, and true claims are not.
func TestDocClaimCheckerFails(t *testing.T) {
	page := "Run `dbmem report --no-such-flag`.\n\n" +
		"```\n$ sudo dbmem check --exit-code warning --ram 8GiB\n$ dbmem frobnicate --json\n```\n\n" +
		"| `--made-up` | nothing |\n| `--top N` | true |\n\n" +
		"True: `dbmem lab oom --quick`, `dbmem exporter --web.listen-address :9815`, `dbmem plan --ram 8GiB --swap 0 --json`, `--method`, `dbmem report --top 3 | less`, `dbmem --proc /x report --all`, `dbmem pooler set/rollback --yes`.\n"
	bad := checkDocClaims(docsCommand(), []docFile{{"page.md", page}})
	want := []string{
		`page.md:1: "dbmem report" has no flag --no-such-flag`,
		`page.md:4: "dbmem check" has no flag --ram`,
		`page.md:5: dbmem frobnicate: no such command`,
		"page.md:8: `--made-up`: no dbmem command has --made-up",
	}
	if strings.Join(bad, "\n") != strings.Join(want, "\n") {
		t.Errorf("checker found:\n%s\nwant:\n%s", strings.Join(bad, "\n"), strings.Join(want, "\n"))
	}
}
