package corpus

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Case is one block of expectations.txt: inputs placed in a base tree, and
// what every output must say about them.
type Case struct {
	Name   string
	Inputs []string // paths under testdata/partial
	Base   string   // BaseMinimal or BasePG15Off
	Want   []Want
	Line   int // where the block starts, for messages
}

// Bases a case's inputs are placed in.
const (
	BaseMinimal = "minimal"
	BasePG15Off = "pg15-off"
)

// Want is one expectation line: its kind ("json", "text", "skip", ...)
// and the rest of the line.
type Want struct {
	Kind string
	Arg  string
	Line int
}

// kinds are the expectation lines a case may hold; "dba" is prose.
var kinds = map[string]bool{"accept": true, "refuse": true, "json": true, "text": true, "notext": true,
	"notseen": true, "skip": true, "noskip": true, "finding": true, "nofinding": true, "plan": true,
	"plantext": true, "metric": true, "nometric": true}

// ParseExpectations reads expectations.txt. An unknown kind or a line
// outside a case is an error naming the line.
func ParseExpectations(r io.Reader) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, arg, _ := strings.Cut(line, " ")
		switch {
		case kind == "==":
			f := strings.Fields(arg)
			if len(f) < 2 {
				return nil, fmt.Errorf("line %d: a case needs a name and at least one input", n)
			}
			cases = append(cases, Case{Name: f[0], Inputs: f[1:], Base: BaseMinimal, Line: n})
		case len(cases) == 0:
			return nil, fmt.Errorf("line %d: %q before the first case (== NAME INPUT...)", n, line)
		case kind == "base":
			cases[len(cases)-1].Base = arg
		case kind == "dba":
		case kinds[kind]:
			c := &cases[len(cases)-1]
			c.Want = append(c.Want, Want{Kind: kind, Arg: strings.TrimSpace(arg), Line: n})
		default:
			return nil, fmt.Errorf("line %d: unknown expectation %q", n, kind)
		}
	}
	return cases, sc.Err()
}
