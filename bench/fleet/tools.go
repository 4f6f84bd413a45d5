package main

import (
	"context"
	"fmt"
)

// target is what the readers measure: the benchmark's client backends.
type target struct {
	PIDs []int
	// Regex selects the same backends by command line for smem (-P).
	Regex string
	Self  string // this program, for `fleet measure` and `fleet psmem`
	DBMem string // the dbmem binary ("" skips the report runs)
	Smem  string
}

// tool is one reader under test.
type tool struct {
	Name string
	// PerBackend is false for `dbmem report`, which reads every process
	// of every instance on the host, not just the target's backends.
	PerBackend bool
	argv       func(t target) []string
	parse      func(b []byte) ([]procValue, *measureOut, error)
}

func measureTool(name string, args ...string) tool {
	return tool{Name: name, PerBackend: true,
		argv: func(t target) []string {
			return append(append([]string{t.Self, "measure"}, args...), "-pids", joinPIDs(t.PIDs))
		},
		parse: func(b []byte) ([]procValue, *measureOut, error) {
			m, err := parseMeasure(b)
			return m.Costs, &m, err
		}}
}

var (
	// toolFast is what `dbmem report --method auto` does per process: the
	// pagemap path, or smaps_rollup where that is cheaper; toolPagemap
	// always takes the pagemap path.
	toolFast    = measureTool("dbmem fast", "-method", "fast")
	toolPagemap = measureTool("dbmem fast, pagemap only", "-method", "fast", "-always-pagemap")
	toolSmaps   = measureTool("dbmem smaps", "-method", "smaps")
	toolStatus  = measureTool("dbmem status", "-method", "status")
	toolPsmem   = tool{Name: "ps_mem-style", PerBackend: true,
		argv: func(t target) []string { return []string{t.Self, "psmem", "-p", joinPIDs(t.PIDs)} },
		parse: func(b []byte) ([]procValue, *measureOut, error) {
			v, err := parseJSONLines(b)
			return v, nil, err
		}}
	toolSmem = tool{Name: "smem", PerBackend: true,
		argv: func(t target) []string { return []string{t.Smem, "-H", "-c", "pid uss pss rss swap", "-P", t.Regex} },
		parse: func(b []byte) ([]procValue, *measureOut, error) {
			v, err := parseSmem(b)
			return v, nil, err
		}}
)

func reportTool(method string) tool {
	return tool{Name: "dbmem report --method " + method,
		argv:  func(t target) []string { return []string{t.DBMem, "report", "--method", method} },
		parse: func([]byte) ([]procValue, *measureOut, error) { return nil, nil, nil }}
}

// toolRun is every run of one tool in one configuration.
type toolRun struct {
	Tool string    `json:"tool"`
	Runs []runStat `json:"runs"`
	// Values are the per-backend numbers of each run.
	Values    [][]procValue `json:"values,omitempty"`
	Fallbacks []string      `json:"fallbacks,omitempty"`
	Err       string        `json:"error,omitempty"`
}

// runOnce runs tool once and appends the result.
func (r *toolRun) runOnce(ctx context.Context, tl tool, t target) error {
	st, out, err := runChild(ctx, tl.argv(t))
	if err != nil {
		r.Err = err.Error()
		return err
	}
	vals, m, err := tl.parse(out)
	if err != nil {
		r.Err = err.Error()
		return err
	}
	if m != nil {
		st.InnerWallNS, st.InnerCPUNS = m.ElapsedNS, m.CPUNS
		r.Fallbacks = m.Fallbacks
	}
	if tl.PerBackend && len(vals) != len(t.PIDs) {
		return fmt.Errorf("%s measured %d processes, want the %d backends", tl.Name, len(vals), len(t.PIDs))
	}
	r.Runs = append(r.Runs, st)
	if vals != nil {
		r.Values = append(r.Values, vals)
	}
	return nil
}
