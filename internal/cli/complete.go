package cli

import (
	"strings"

	"github.com/prometheus/common/promslog"
	"github.com/spf13/cobra"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/render"
)

// flagValues are the values an enumerated flag takes, by command and flag
// name, for shell completion ("dbmem report --method <TAB>").
func flagValues() map[string]map[string][]string {
	var sev []string
	for s := finding.Info; s <= finding.Critical; s++ {
		sev = append(sev, s.String())
	}
	var methods []string
	for _, c := range measure.Methods {
		methods = append(methods, string(c))
	}
	return map[string]map[string][]string{
		"report":   {"method": methods},
		"check":    {"exit-code": sev, "min-severity": sev},
		"plan":     {"format": render.Kinds, "page-size": {"2MiB", "1GiB"}},
		"lab":      {"modes": {"off", "on", "try"}},
		"exporter": {"log.level": promslog.LevelFlagOptions, "log.format": promslog.FormatFlagOptions, "method": methods[:3]},
	}
}

// Flags naming a file or a directory complete as such; the rest of the
// free-form flags offer nothing rather than file names.
var (
	fileFlags = []string{"from", "html", "record", "plan", "kernel-log", "db-log"}
	dirFlags  = []string{"proc", "sys", "root", "write-root", "journal-dir", "pg-bin", "data-dir", "conf-dir", "dir"}
)

// registerCompletions adds value completion to every command's flags.
func registerCompletions(root *cobra.Command) {
	values := flagValues()
	walk(root, func(c *cobra.Command) {
		for name, vs := range values[c.Name()] {
			c.RegisterFlagCompletionFunc(name, fixedValues(vs))
		}
		for _, f := range fileFlags {
			markPath(c, f, c.MarkFlagFilename, c.MarkPersistentFlagFilename)
		}
		for _, f := range dirFlags {
			markPath(c, f, func(n string, _ ...string) error { return c.MarkFlagDirname(n) }, func(n string, _ ...string) error { return c.MarkPersistentFlagDirname(n) })
		}
	})
}

// fixedValues completes a comma-separated list value too (--modes off,on).
func fixedValues(vs []string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		done := ""
		if i := strings.LastIndex(toComplete, ","); i >= 0 {
			done = toComplete[:i+1]
		}
		var out []string
		for _, v := range vs {
			if strings.HasPrefix(done+v, toComplete) {
				out = append(out, done+v)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// markPath marks the flag that c itself defines (locally or as a
// persistent flag), not those it inherits.
func markPath(c *cobra.Command, name string, local func(string, ...string) error, persistent func(string, ...string) error) {
	switch {
	case c.LocalNonPersistentFlags().Lookup(name) != nil:
		local(name)
	case c.PersistentFlags().Lookup(name) != nil:
		persistent(name)
	}
}

func walk(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		walk(sub, f)
	}
}
