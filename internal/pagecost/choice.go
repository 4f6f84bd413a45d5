package pagecost

import (
	"fmt"
	"strings"
)

// Choice is what a user asks for (dbmem report --method): the method that
// measures Pss_Anon and, for the fast path, what to use where it is not
// possible. The zero value is not a choice; callers decide what "" means.
type Choice string

const (
	// ChoiceAuto is the fast path, smaps_rollup where it is not possible:
	// always exact, cheap where dbmem runs as root.
	ChoiceAuto Choice = "auto"
	// ChoiceFast is the fast path, status where it is not possible: never
	// walks the page tables of shared memory, exact where dbmem runs as
	// root, an over-estimate (RssAnon) elsewhere.
	ChoiceFast Choice = "fast"
	// ChoiceSmaps reads smaps_rollup for every process: exact, all of its
	// fields (Pss, Pss_Shmem, hugetlb), as slow as the page tables are large.
	ChoiceSmaps Choice = "smaps"
	// ChoiceStatus reads status only: RssAnon stands in for Pss_Anon.
	ChoiceStatus Choice = "status"
)

// Choices lists every choice, the default first.
var Choices = []Choice{ChoiceAuto, ChoiceFast, ChoiceSmaps, ChoiceStatus}

// ParseChoice parses "auto", "fast", "smaps" or "status".
func ParseChoice(s string) (Choice, error) {
	for _, c := range Choices {
		if s == string(c) {
			return c, nil
		}
	}
	names := make([]string, len(Choices))
	for i, c := range Choices {
		names[i] = string(c)
	}
	return "", fmt.Errorf("unknown method %q: want %s", s, strings.Join(names, ", "))
}

// Options returns the Measure options for the choice (ChoiceAuto for an
// unknown one).
func (c Choice) Options() Options {
	switch c {
	case ChoiceFast:
		return Options{Method: MethodFast, Fallback: MethodStatus}
	case ChoiceSmaps:
		return Options{Method: MethodSmaps}
	case ChoiceStatus:
		return Options{Method: MethodStatus}
	}
	return Options{Method: MethodFast, Fallback: MethodSmaps}
}
