package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/dbmem/dbmem/internal/units"
)

// flagRule is what a numeric flag accepts when the user gives it. A flag
// left at its default is not checked: defaults of 0 stand for "not set".
type flagRule struct {
	min, max float64 // inclusive bounds (seconds for durations, bytes for sizes)
	minOpen  bool    // min itself is refused
	size     bool    // a size typed as text (64GiB): checked in bytes
	want     string  // what the flag wants, said in the error
}

// atLeast1 is a count: 1 or more.
func atLeast1(what string) flagRule {
	return flagRule{min: 1, max: math.Inf(1), want: "a count of at least 1 (" + what + ")"}
}

// zeroOr is a count or duration where 0 has a documented meaning.
func zeroOr(meaning string) flagRule {
	return flagRule{min: 0, max: math.Inf(1), want: "0 (" + meaning + ") or more"}
}

// above0 is a duration or size that must be more than 0.
func above0(example string) flagRule {
	return flagRule{min: 0, minOpen: true, max: math.Inf(1), want: "more than 0 (e.g. " + example + ")"}
}

func sizeRule(r flagRule) flagRule { r.size = true; return r }

// numericFlags lists every numeric flag of every command by name (a name
// means the same in every command that has it). TestEveryNumericFlagHasARule
// fails when a numeric flag is added without a line here.
var numericFlags = map[string]flagRule{
	// counts
	"top":                       atLeast1("processes listed"),
	"nodes":                     atLeast1("sort/hash nodes per query"),
	"numa-nodes":                atLeast1("NUMA nodes"),
	"max-connections":           atLeast1("connections"),
	"max-locks-per-transaction": atLeast1("locks"),
	"max-worker-processes":      atLeast1("processes"),
	"cpus":                      atLeast1("CPUs"),
	"active-sessions":           atLeast1("sessions"),
	"contexts":                  atLeast1("backends"),
	"contexts-pid":              atLeast1("a process ID"),
	"pid":                       atLeast1("a process ID"),
	"oom-top":                   atLeast1("processes listed"),
	"web.max-connections":       atLeast1("connections"),
	"width":                     atLeast1("characters"),
	"connections":               atLeast1("connections"),
	"bench-runs":                atLeast1("runs"),
	"bench-clients":             atLeast1("clients"),
	"clients":                   atLeast1("clients"),
	"idle":                      atLeast1("sessions"),
	"rows":                      atLeast1("rows"),
	"reporters":                 atLeast1("sessions"),
	"rounds":                    atLeast1("runs"),
	"max-log-bytes":             atLeast1("bytes"),
	"count":                     zeroOr("until interrupted"),
	"last":                      zeroOr("all"),
	"pg-port":                   {min: 1, max: 65535, want: "a TCP port, 1 to 65535"},
	"mysql-port":                {min: 1, max: 65535, want: "a TCP port, 1 to 65535"},
	"pg-version":                {min: 9, max: 99, want: "a PostgreSQL major version (9 to 99)"},
	"swappiness":                {min: 0, max: 200, want: "a vm.swappiness, 0 to 200"},
	"margin":                    {min: 0, max: 100, want: "a percentage, 0 to 100"},
	"reserve":                   {min: 0, minOpen: true, max: 99.999, want: "a percentage between 0 and 100"},
	// durations
	"interval":        above0("2s"),
	"read-timeout":    above0("5s"),
	"scrape-timeout":  above0("30s"),
	"growth-window":   above0("30m"),
	"growth-min-span": above0("10m"),
	"tolerance":       above0("2m"),
	"bench-time":      above0("15s"),
	"before":          above0("10s"),
	"after":           above0("10s"),
	"duration":        above0("45s"),
	"smaps-interval":  zeroOr("never"),
	"retention":       zeroOr("keep all"),
	"xray-growing":    zeroOr("never"),
	"since":           zeroOr("no limit"),
	// sizes
	"ram":                     sizeRule(above0("64GiB")),
	"swap":                    sizeRule(zeroOr("no swap")),
	"shared-buffers":          sizeRule(above0("16GiB")),
	"work-mem":                sizeRule(above0("64MiB")),
	"wal-buffers":             sizeRule(above0("16MiB")),
	"innodb-buffer-pool-size": sizeRule(above0("8GiB")),
	"page-size":               sizeRule(above0("2MiB")),
	"limit":                   sizeRule(above0("2GiB")),
	"headroom":                sizeRule(zeroOr("none")),
	"memory-limit":            sizeRule(zeroOr("no limit")),
}

// numericTypes are the pflag types checked; a string flag is checked only
// when its rule says it is a size.
var numericTypes = map[string]bool{"int": true, "int64": true, "float64": true, "duration": true, "intSlice": true, "size": true}

// checkFlags refuses a numeric flag given out of its range: a usage error
// (exit 2) naming the flag, before the command reads anything.
func checkFlags(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err == nil {
			err = checkFlag(f)
		}
	})
	return err
}

func checkFlag(f *pflag.Flag) error {
	r, ok := numericFlags[f.Name]
	t := f.Value.Type()
	if !ok || !(numericTypes[t] || (t == "string" && r.size)) {
		return nil
	}
	vals, err := flagNumbers(f, r.size)
	if err != nil {
		return usageError{fmt.Errorf("--%s %s: %w", f.Name, f.Value.String(), err)}
	}
	for _, v := range vals {
		if v < r.min || v > r.max || (r.minOpen && v == r.min) {
			return usageError{fmt.Errorf("--%s %s: want %s", f.Name, strings.Trim(f.Value.String(), "[]"), r.want)}
		}
	}
	return nil
}

// flagNumbers reads a flag's value as numbers: seconds for a duration,
// bytes for a size, each element of a list.
func flagNumbers(f *pflag.Flag, size bool) ([]float64, error) {
	s := f.Value.String()
	switch {
	case f.Value.Type() == "duration":
		d, err := time.ParseDuration(s)
		return []float64{d.Seconds()}, err
	case size:
		b, err := units.ParseSize(s)
		return []float64{float64(b)}, err
	case f.Value.Type() == "intSlice":
		var out []float64
		for _, e := range strings.Split(strings.Trim(s, "[]"), ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(e), 64)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	return []float64{v}, err
}
