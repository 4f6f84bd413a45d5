package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// psmemMain reads the given PIDs the way ps_mem 3.14 (github.com/pixelb/ps_mem,
// `ps_mem -d -p PIDS`) does, and prints one JSON procValue per PID. ps_mem
// is a Python script not packaged for Debian 12 and PyPI is not reachable
// here, so this is its reading method rewritten in Go (faster than the
// script would be: the comparison favours ps_mem). For every entry of
// /proc that is in the list it reads cmdline, the exe link and status (the
// program name), statm, checks that smaps and smaps_rollup exist, and
// reads smaps_rollup (smaps on kernels without it).
func psmemMain(args []string, w io.Writer) error {
	f := flag.NewFlagSet("psmem", flag.ContinueOnError)
	pidList := f.String("p", "", "comma-separated PIDs")
	if err := f.Parse(args); err != nil {
		return err
	}
	pids, err := parsePIDs(*pidList)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, p := range pids {
		want[strconv.Itoa(p)] = true
	}
	names, err := readDirNames("/proc")
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	for _, name := range names {
		if !want[name] {
			continue
		}
		if v, ok := psmemProcess(filepath.Join("/proc", name)); ok {
			v.PID, _ = strconv.Atoi(name)
			if err := enc.Encode(v); err != nil {
				return err
			}
		}
	}
	return nil
}

func readDirNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// psmemProcess is ps_mem's getCmdName and getMemStats for one process;
// false when it went away or is a kernel thread (no exe link).
func psmemProcess(dir string) (procValue, bool) {
	if _, err := os.ReadFile(filepath.Join(dir, "cmdline")); err != nil {
		return procValue{}, false
	}
	if _, err := os.Readlink(filepath.Join(dir, "exe")); err != nil {
		return procValue{}, false
	}
	if _, err := os.ReadFile(filepath.Join(dir, "status")); err != nil {
		return procValue{}, false
	}
	if _, err := os.ReadFile(filepath.Join(dir, "statm")); err != nil {
		return procValue{}, false
	}
	file := "smaps"
	if _, err := os.Stat(filepath.Join(dir, "smaps_rollup")); err == nil {
		file = "smaps_rollup" // "faster to process"
	}
	f, err := os.Open(filepath.Join(dir, file))
	if err != nil {
		return procValue{}, false
	}
	defer f.Close()
	st := psmemStats(f)
	return procValue{Private: uint64(st.privateKB * 1024), Pss: uint64((st.privateKB + st.sharedKB + st.sharedHugeKB) * 1024), Swap: uint64(st.swapKB * 1024)}, true
}

// psmemStat is ps_mem's (Private, Shared, Shared_huge, Swap) in KiB.
type psmemStat struct {
	privateKB, sharedKB, sharedHugeKB, swapKB float64
}

// psmemStats applies ps_mem's sums to smaps or smaps_rollup text: Private
// is Private_Clean + Private_Dirty (+ Private_Hugetlb), Shared is
// Pss - Private where Pss lines exist (each Pss line plus 0.5 kB, "the
// average error due to truncation"), Swap is SwapPss where it exists.
func psmemStats(r io.Reader) psmemStat {
	var st psmemStat
	var shared, pss, privHuge, swap, swapPss float64
	havePss, haveSwapPss := false, false
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		v := fieldKB(line)
		switch {
		case strings.HasPrefix(line, "Private_Hugetlb:"):
			privHuge += v
		case strings.HasPrefix(line, "Shared_Hugetlb:"):
			st.sharedHugeKB += v
		case strings.HasPrefix(line, "Shared"):
			shared += v
		case strings.HasPrefix(line, "Private"):
			st.privateKB += v
		case strings.HasPrefix(line, "Pss:"):
			havePss, pss = true, pss+v+0.5
		case strings.HasPrefix(line, "Swap:"):
			swap += v
		case strings.HasPrefix(line, "SwapPss:"):
			haveSwapPss, swapPss = true, swapPss+v
		}
	}
	st.sharedKB, st.swapKB = shared, swap
	if havePss {
		st.sharedKB = pss - st.privateKB
	}
	if haveSwapPss {
		st.swapKB = swapPss
	}
	st.privateKB += privHuge
	return st
}

// fieldKB is int(line.split()[1]), 0 when there is none.
func fieldKB(line string) float64 {
	f := strings.Fields(line)
	if len(f) < 2 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[1], 64)
	return v
}
