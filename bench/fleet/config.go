package main

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// config is the command line of a comparison run.
type config struct {
	Conns []int
	// ConnsFor overrides Conns for one huge_pages setting (-conns-off,
	// -conns-on), e.g. to add 1,000 backends to an earlier run of 200
	// and 500.
	ConnsFor map[string][]int
	Huge     []string
	Shared   string // shared_buffers, e.g. "4GB"
	Small    string // shared_buffers above SmallAbove backends with huge_pages=off
	SmallAt  int
	Reps     int
	ReportAt []int
	DBMem    string
	Smem     string
	Out      string
	Parallel int
	Margin   uint64
	// MaxTime ends the run (through the same clean-up as Ctrl-C) once it
	// has lasted this long; 0: no limit.
	MaxTime time.Duration
}

func parseConfig(args []string) (config, error) {
	var c config
	f := flag.NewFlagSet("fleet", flag.ContinueOnError)
	conns := f.String("conns", "200,500,1000", "numbers of backends, ascending")
	huge := f.String("huge", "off,on", "huge_pages settings, in order")
	connsFor := map[string]*string{
		"off": f.String("conns-off", "", "numbers of backends with huge_pages=off (default: -conns)"),
		"on":  f.String("conns-on", "", "numbers of backends with huge_pages=on (default: -conns)"),
	}
	reportAt := f.String("report-at", "500,1000", "numbers of backends at which to time `dbmem report`")
	f.StringVar(&c.Shared, "shared-buffers", "4GB", "shared_buffers (each backend reads a table of 90% of it)")
	f.StringVar(&c.Small, "small-shared-buffers", "2GB", "shared_buffers with huge_pages=off above -small-above backends")
	f.IntVar(&c.SmallAt, "small-above", 500, "see -small-shared-buffers: 4 KiB page tables of 1,000 backends x 4 GiB would take 8 GiB")
	f.IntVar(&c.Reps, "reps", 3, "runs of each reader per configuration (the median is reported)")
	f.StringVar(&c.DBMem, "dbmem", "", "dbmem binary for the end-to-end `dbmem report` runs (empty: skip them)")
	f.StringVar(&c.Smem, "smem", "/usr/bin/smem", "smem (Debian package)")
	f.StringVar(&c.Out, "out", "bench/results/"+time.Now().Format("2006-01-02")+".md", "Markdown result file (raw JSON next to it)")
	f.IntVar(&c.Parallel, "parallel", 2, "connections opened (and scanning) at a time")
	margin := f.Int("margin-gib", 3, "GiB of MemAvailable to leave free; a configuration that does not fit is skipped")
	f.DurationVar(&c.MaxTime, "max-time", 0, "stop cleanly after this long (e.g. 55m), keeping what was measured; 0: no limit")
	if err := f.Parse(args); err != nil {
		return c, err
	}
	c.Margin = uint64(*margin) << 30
	var err error
	if c.Conns, err = parseInts(*conns); err != nil {
		return c, err
	}
	if c.ReportAt, err = parseInts(*reportAt); err != nil && *reportAt != "" {
		return c, err
	}
	c.ConnsFor = map[string][]int{}
	for h, v := range connsFor {
		if *v == "" {
			continue
		}
		if c.ConnsFor[h], err = parseInts(*v); err != nil {
			return c, fmt.Errorf("-conns-%s: %w", h, err)
		}
	}
	c.Huge = strings.Split(*huge, ",")
	if c.Reps < 1 {
		return c, fmt.Errorf("-reps %d: want at least 1", c.Reps)
	}
	return c, nil
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q: want positive numbers separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// group is one server start: a huge_pages setting and shared_buffers, and
// the numbers of backends measured in it (connections are added, never
// closed, between them).
type group struct {
	Huge   string
	Shared string
	Conns  []int
}

// groups plans the server starts: with huge_pages=off, more than SmallAt
// backends use the smaller shared_buffers so that their page tables fit.
func (c config) groups() []group {
	var out []group
	for _, h := range c.Huge {
		big := group{Huge: h, Shared: c.Shared}
		small := group{Huge: h, Shared: c.Small}
		for _, n := range c.connsFor(h) {
			if h == "off" && n > c.SmallAt && c.Small != c.Shared {
				small.Conns = append(small.Conns, n)
			} else {
				big.Conns = append(big.Conns, n)
			}
		}
		for _, g := range []group{big, small} {
			if len(g.Conns) > 0 {
				out = append(out, g)
			}
		}
	}
	return out
}

// connsFor returns the numbers of backends measured with huge_pages=h.
func (c config) connsFor(h string) []int {
	if n, ok := c.ConnsFor[h]; ok {
		return n
	}
	return c.Conns
}

// reportAt says whether to time `dbmem report` with n backends.
func (c config) reportAt(n int) bool {
	for _, r := range c.ReportAt {
		if r == n {
			return c.DBMem != ""
		}
	}
	return false
}

// sizeBytes parses PostgreSQL sizes such as "4GB", "512MB", "2048kB".
func sizeBytes(s string) (uint64, error) {
	units := []struct {
		suffix string
		mult   uint64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			n, err := strconv.ParseUint(strings.TrimSpace(num), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("size %q: %w", s, err)
			}
			return n * u.mult, nil
		}
	}
	return 0, fmt.Errorf("size %q: want a number with TB, GB, MB or kB", s)
}
