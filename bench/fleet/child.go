package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// runStat is the cost of one child run, from wait4's rusage.
type runStat struct {
	WallNS   int64 `json:"wall_ns"`
	UserNS   int64 `json:"user_ns"`
	SysNS    int64 `json:"sys_ns"`
	MaxRSSKB int64 `json:"max_rss_kb"`
	// InnerWallNS and InnerCPUNS are what `fleet measure` timed of its own
	// Measure call (0 for other readers).
	InnerWallNS int64 `json:"inner_wall_ns,omitempty"`
	InnerCPUNS  int64 `json:"inner_cpu_ns,omitempty"`
}

// CPUNS is user + system time.
func (r runStat) CPUNS() int64 { return r.UserNS + r.SysNS }

// timeBin is GNU time, which runs each child to measure its peak RSS:
// Go starts children with clone(CLONE_VM|CLONE_VFORK), and the kernel then
// charges the parent's peak RSS (this program's, with its 1,000
// connections) to the child's ru_maxrss at exec. time(1) forks its child
// normally from a process of 2 MiB.
var timeBin = "/usr/bin/time"

// runChild runs argv to completion and returns its cost and stdout. Wall
// and CPU time come from wait4 (time's own share is about a millisecond).
func runChild(ctx context.Context, argv []string) (runStat, []byte, error) {
	rssFile, err := os.CreateTemp("", "fleet-rss-")
	if err != nil {
		return runStat{}, nil, err
	}
	rssFile.Close()
	defer os.Remove(rssFile.Name())
	if _, err := os.Stat(timeBin); err == nil {
		argv = append([]string{timeBin, "-f", "%M", "-o", rssFile.Name(), "--"}, argv...)
	}
	// Without time(1) wait4's ru_maxrss would be this program's peak
	// (see timeBin): MaxRSSKB stays 0, "not measured".
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err = cmd.Run()
	st := runStat{WallNS: int64(time.Since(start))}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			st.UserNS, st.SysNS = ru.Utime.Nano(), ru.Stime.Nano()
		}
	}
	if kb, ok := readPeakRSS(rssFile.Name()); ok {
		st.MaxRSSKB = kb
	}
	if err != nil {
		return st, nil, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, strings.TrimSpace(errb.String()))
	}
	return st, out.Bytes(), nil
}

// readPeakRSS reads the last line of time's -o file (KiB); a failing
// command has a "Command exited with ..." line before it.
func readPeakRSS(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	lines := strings.Fields(strings.TrimSpace(string(b)))
	if err != nil || len(lines) == 0 {
		return 0, false
	}
	kb, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	return kb, err == nil
}

// parseMeasure reads `fleet measure` output.
func parseMeasure(b []byte) (measureOut, error) {
	var m measureOut
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("fleet measure output: %w", err)
	}
	return m, nil
}

// parseJSONLines reads one procValue per line (`fleet psmem`).
func parseJSONLines(b []byte) ([]procValue, error) {
	var out []procValue
	dec := json.NewDecoder(bytes.NewReader(b))
	for dec.More() {
		var v procValue
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("psmem output: %w", err)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseSmem reads `smem -H -c "pid uss pss rss swap"` output (KiB).
func parseSmem(b []byte) ([]procValue, error) {
	var out []procValue
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		var n [5]uint64
		if len(f) != len(n) {
			return nil, fmt.Errorf("smem line %q: want pid uss pss rss swap", sc.Text())
		}
		for i := range f {
			v, err := strconv.ParseUint(f[i], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("smem line %q: %w", sc.Text(), err)
			}
			n[i] = v
		}
		out = append(out, procValue{PID: int(n[0]), Private: n[1] << 10, Pss: n[2] << 10, Swap: n[4] << 10})
	}
	return out, sc.Err()
}
