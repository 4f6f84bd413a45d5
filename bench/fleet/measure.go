package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pagecost"
	"github.com/dbmem/dbmem/internal/units"
)

// measureOut is what `fleet measure` prints: dbmem's numbers per PID and
// the cost of the Measure call alone (without process start-up).
type measureOut struct {
	ElapsedNS int64       `json:"elapsed_ns"`
	CPUNS     int64       `json:"cpu_ns"`
	Skipped   int         `json:"skipped"`
	Fallbacks []string    `json:"fallbacks,omitempty"`
	Costs     []procValue `json:"costs"`
}

// procValue is one process's numbers from any reader, in bytes.
type procValue struct {
	PID     int    `json:"pid"`
	Method  string `json:"method,omitempty"`
	PssAnon uint64 `json:"pss_anon,omitempty"`
	VmPTE   uint64 `json:"vm_pte,omitempty"`
	Swap    uint64 `json:"swap,omitempty"`
	RssAnon uint64 `json:"rss_anon,omitempty"`
	// Private is the reader's private figure: Pss_Anon+VmPTE+VmSwap for
	// dbmem, USS for smem, Private for ps_mem.
	Private uint64 `json:"private"`
	// Pss is smem's PSS, ps_mem's Private+Shared (its "RAM used").
	Pss uint64 `json:"pss,omitempty"`
}

func measureMain(args []string, w io.Writer) error {
	f := flag.NewFlagSet("measure", flag.ContinueOnError)
	method := f.String("method", "fast", "fast, smaps or status")
	always := f.Bool("always-pagemap", false, "fast: read pagemap even where smaps_rollup is cheaper")
	pidList := f.String("pids", "", "comma-separated PIDs")
	if err := f.Parse(args); err != nil {
		return err
	}
	m, err := pagecost.ParseMethod(*method)
	if err != nil {
		return err
	}
	pids, err := parsePIDs(*pidList)
	if err != nil {
		return err
	}
	out, err := measureOnce(pids, pagecost.Options{Method: m, AlwaysPagemap: *always})
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(out)
}

// measureOnce runs one pagecost.Measure call and times it.
func measureOnce(pids []int, opt pagecost.Options) (measureOut, error) {
	c0, w0 := cpuTime(), time.Now()
	costs, skipped, err := pagecost.Measure(linux.DefaultFS(), pids, opt)
	out := measureOut{ElapsedNS: int64(time.Since(w0)), CPUNS: int64(cpuTime() - c0), Skipped: len(skipped)}
	if err != nil {
		return out, err
	}
	for _, fb := range pagecost.Fallbacks(costs) {
		out.Fallbacks = append(out.Fallbacks, fb.Error())
	}
	for _, c := range costs {
		private, _ := c.PrivateBytes()
		out.Costs = append(out.Costs, procValue{PID: c.PID, Method: c.Method.String(), PssAnon: c.PssAnonBytes,
			VmPTE: units.Deref(c.VmPTEBytes), Swap: units.Deref(c.VmSwapBytes), RssAnon: units.Deref(c.RssAnonBytes), Private: private})
	}
	return out, nil
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// parsePIDs parses "12,34,56".
func parsePIDs(s string) ([]int, error) {
	var pids []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("PID list: %q is not a PID", f)
		}
		pids = append(pids, n)
	}
	if len(pids) == 0 {
		return nil, fmt.Errorf("no PIDs given")
	}
	return pids, nil
}

// joinPIDs is parsePIDs's inverse.
func joinPIDs(pids []int) string {
	s := make([]string, len(pids))
	for i, p := range pids {
		s[i] = strconv.Itoa(p)
	}
	return strings.Join(s, ",")
}
