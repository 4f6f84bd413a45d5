// Command fleet measures, in one run on one host, how long dbmem's exact
// fast path, dbmem's smaps_rollup path, smem and a ps_mem-style reader take
// to measure the private memory of 200, 500 and 1,000 PostgreSQL backends
// that each touched all of shared_buffers (huge_pages off, then on), how
// far their numbers agree, and what `dbmem report` costs end to end. It
// writes a Markdown table (and the raw numbers as JSON).
//
//	fleet [flags]                        run the comparison (bench/run builds and calls it)
//	fleet measure -method M -pids LIST   child: dbmem's pagecost.Measure, JSON on stdout
//	fleet psmem -p LIST                  child: ps_mem's reading method, per PID
//
// Every reader runs as a child process, one at a time, so that its wall
// time, CPU time (user+sys from wait4) and peak RSS are its own.
package main

import (
	"fmt"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	var err error
	switch {
	case len(args) > 0 && args[0] == "measure":
		err = measureMain(args[1:], os.Stdout)
	case len(args) > 0 && args[0] == "psmem":
		err = psmemMain(args[1:], os.Stdout)
	default:
		err = benchMain(args)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		return 1
	}
	return 0
}
