package cli

import (
	"io"
	"math"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// eachFlag calls f for every flag of every runnable command (the root's
// persistent flags included).
func eachFlag(f func(path []string, fl *pflag.Flag)) {
	root := newRoot(&env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c != root {
			c.InheritedFlags().VisitAll(func(fl *pflag.Flag) { f(strings.Fields(c.CommandPath())[1:], fl) })
			c.LocalFlags().VisitAll(func(fl *pflag.Flag) { f(strings.Fields(c.CommandPath())[1:], fl) })
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
}

// TestEveryNumericFlagHasARule is the audit: a numeric flag without a
// line in numericFlags fails here, and so does a line no flag uses.
func TestEveryNumericFlagHasARule(t *testing.T) {
	used := map[string]bool{}
	eachFlag(func(path []string, fl *pflag.Flag) {
		r, ok := numericFlags[fl.Name]
		switch {
		case numericTypes[fl.Value.Type()] && !ok:
			t.Errorf("dbmem %s --%s (%s) has no rule in numericFlags", strings.Join(path, " "), fl.Name, fl.Value.Type())
		case ok && (numericTypes[fl.Value.Type()] || r.size):
			used[fl.Name] = true
		}
	})
	for name := range numericFlags {
		if !used[name] {
			t.Errorf("numericFlags has %q, which no command has", name)
		}
	}
}

// badValues are the values a flag's rule refuses: negative, zero where 0
// means nothing, and above the maximum.
func badValues(fl *pflag.Flag, r flagRule) []string {
	unit := ""
	switch {
	case fl.Value.Type() == "duration":
		unit = "s"
	case r.size:
		unit = "MiB"
	}
	vals := []string{"-1" + unit, "-3" + unit}
	if r.min > 0 || r.minOpen {
		vals = append(vals, "0"+unit)
	}
	if !math.IsInf(r.max, 1) {
		vals = append(vals, "1000000")
	}
	return vals
}

// positional are the arguments commands need before they check flags.
var positional = map[string][]string{"history": {"/nonexistent.db"}, "pooler set": {"default_pool_size=15"}}

// TestBadNumericFlags runs the built binary: every command with each bad
// value of each of its numeric flags exits 2, names the flag, and does
// not panic.
func TestBadNumericFlags(t *testing.T) {
	n := 0
	eachFlag(func(path []string, fl *pflag.Flag) {
		r, ok := numericFlags[fl.Name]
		if !ok || !(numericTypes[fl.Value.Type()] || r.size) {
			return
		}
		for _, v := range badValues(fl, r) {
			args := append(append(append([]string{}, path...), positional[strings.Join(path, " ")]...), "--"+fl.Name+"="+v)
			code, _, stderr := runAs(t, nil, []string{"PATH=/usr/bin:/bin"}, args...)
			n++
			if code != ExitUsage || !strings.Contains(stderr, "--"+fl.Name) || strings.Contains(stderr, "panic") {
				t.Errorf("dbmem %s: exit %d, stderr %q; want exit 2 naming --%s", strings.Join(args, " "), code, stderr, fl.Name)
			}
		}
	})
	t.Logf("%d runs", n)
}

// TestGoodNumericFlagsPass: values inside each rule are accepted by the
// check (0 where it has a meaning, the documented defaults).
func TestGoodNumericFlagsPass(t *testing.T) {
	for _, args := range [][]string{
		{"watch", "--count=0", "--smaps-interval=0"},
		{"plan", "--margin=0", "--swap=0"},
		{"postmortem", "--last=0", "--since=0s"},
		{"report", "--top=1", "--contexts-pid=12,13"},
	} {
		cmd, rest, err := newRoot(&env{stdout: io.Discard, stderr: io.Discard}).Find(args)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.ParseFlags(rest); err != nil {
			t.Fatal(err)
		}
		if err := checkFlags(cmd); err != nil {
			t.Errorf("dbmem %v: %v", args, err)
		}
	}
}
