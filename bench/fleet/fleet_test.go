package main

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// A smaps_rollup of a PostgreSQL 15 backend on kernel 6.18.44 (huge_pages=on,
// 30 connections), for ps_mem's sums.
const rollupHuge = `56087a6d2000-7ffd1fbb4000 ---p 00000000 00:00 0                          [rollup]
Rss:                6276 kB
Pss:                1618 kB
Pss_Dirty:          1265 kB
Pss_Anon:           1265 kB
Pss_File:            352 kB
Pss_Shmem:             0 kB
Shared_Clean:       4724 kB
Shared_Dirty:        120 kB
Private_Clean:       160 kB
Private_Dirty:      1272 kB
Referenced:         6276 kB
Anonymous:          1380 kB
KSM:                   0 kB
LazyFree:              0 kB
AnonHugePages:         0 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
Shared_Hugetlb:   509952 kB
Private_Hugetlb:       0 kB
Swap:                  0 kB
SwapPss:               0 kB
Locked:                0 kB
`

// TestPsmemStats checks ps_mem's arithmetic: Private is Private_Clean +
// Private_Dirty (+ Private_Hugetlb), Shared is Pss + 0.5 kB - Private, and
// Shared_Hugetlb is kept apart (ps_mem adds it to the program's RAM).
func TestPsmemStats(t *testing.T) {
	st := psmemStats(strings.NewReader(rollupHuge))
	want := psmemStat{privateKB: 1432, sharedKB: 1618.5 - 1432, sharedHugeKB: 509952}
	if st != want {
		t.Errorf("got %+v, want %+v", st, want)
	}
	old := psmemStats(strings.NewReader("Rss: 10 kB\nShared_Clean: 6 kB\nPrivate_Dirty: 4 kB\nSwap: 3 kB\n"))
	if old != (psmemStat{privateKB: 4, sharedKB: 6, swapKB: 3}) {
		t.Errorf("without Pss lines: %+v", old)
	}
}

func TestParseSmem(t *testing.T) {
	v, err := parseSmem([]byte("  1234  1228  1650  6276 0\n 99 1 2 3 4\n"))
	if err != nil || len(v) != 2 || v[0] != (procValue{PID: 1234, Private: 1228 << 10, Pss: 1650 << 10}) || v[1].Swap != 4<<10 {
		t.Errorf("got %+v, %v", v, err)
	}
	for _, bad := range []string{"1 2 3\n", "1 2 x 4 5\n"} {
		if _, err := parseSmem([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestGroups plans the server starts of the default run: with
// huge_pages=off, 1,000 backends get the smaller shared_buffers.
func TestGroups(t *testing.T) {
	c, err := parseConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.groups()
	want := []group{{"off", "4GB", []int{200, 500}}, {"off", "2GB", []int{1000}}, {"on", "4GB", []int{200, 500, 1000}}}
	if !slices.EqualFunc(got, want, func(a, b group) bool {
		return a.Huge == b.Huge && a.Shared == b.Shared && slices.Equal(a.Conns, b.Conns)
	}) {
		t.Errorf("groups %+v, want %+v", got, want)
	}
	if !c.reportAt(1000) && c.DBMem != "" || c.reportAt(200) {
		t.Errorf("report at 200: %v", c.reportAt(200))
	}
}

// TestGroupsPerSetting: -conns-off and -conns-on replace -conns for one
// setting, in the order of -huge (the run that added 1,000 backends and
// huge_pages=on to an earlier run of 200 and 500 with huge_pages=off).
func TestGroupsPerSetting(t *testing.T) {
	c, err := parseConfig([]string{"-huge", "on,off", "-conns-off", "1000", "-conns-on", "200,500,1000", "-max-time", "55m"})
	if err != nil {
		t.Fatal(err)
	}
	got := c.groups()
	want := []group{{"on", "4GB", []int{200, 500, 1000}}, {"off", "2GB", []int{1000}}}
	if !slices.EqualFunc(got, want, func(a, b group) bool {
		return a.Huge == b.Huge && a.Shared == b.Shared && slices.Equal(a.Conns, b.Conns)
	}) || c.MaxTime.Minutes() != 55 {
		t.Errorf("groups %+v, max time %v; want %+v", got, c.MaxTime, want)
	}
	if _, err := parseConfig([]string{"-conns-on", "200,x"}); err == nil {
		t.Error("-conns-on 200,x: no error")
	}
}

// TestMemoryNeed: 1,000 backends that each touch 3.6 GiB through 4 KiB
// pages need 7.2 GiB of page tables; with 2 MiB pages almost none.
func TestMemoryNeed(t *testing.T) {
	touched := uint64(36) << 30 / 10
	off := memoryNeed(group{Huge: "off", Conns: []int{200, 1000}}, 4<<30, touched)
	on := memoryNeed(group{Huge: "on", Conns: []int{1000}}, 4<<30, touched)
	if off.PageTables != 1000*(touched/512+backendBasePTEBytes) || off.Shared != 4<<30 || off.Private != 1000*backendPrivateBytes {
		t.Errorf("off: %+v", off)
	}
	if on.PageTables > 1000*(backendBasePTEBytes+16<<10) {
		t.Errorf("on: page tables %d", on.PageTables)
	}
}

func TestParsers(t *testing.T) {
	if p, err := parsePIDs("3, 1,2"); err != nil || !slices.Equal(p, []int{3, 1, 2}) || joinPIDs(p) != "3,1,2" {
		t.Errorf("parsePIDs: %v, %v", p, err)
	}
	for _, bad := range []string{"", "1,x", "-4"} {
		if _, err := parsePIDs(bad); err == nil {
			t.Errorf("parsePIDs(%q): no error", bad)
		}
	}
	if v, err := sizeBytes("4GB"); err != nil || v != 4<<30 {
		t.Errorf("sizeBytes(4GB) = %d, %v", v, err)
	}
	if _, err := sizeBytes("4 parsecs"); err == nil {
		t.Error("sizeBytes: no error for a bad unit")
	}
	if median([]int64{5, 1, 3}) != 3 || median([]uint64{4, 1, 3, 2}) != 2 || median([]int64(nil)) != 0 {
		t.Error("median")
	}
}

// TestAgreeAndMarkdown renders a synthetic result: equal and unequal
// Pss_Anon, ratios against smem.
func TestAgreeAndMarkdown(t *testing.T) {
	fast := []procValue{{PID: 1, Method: "fast", PssAnon: 1000 << 10, Private: 3 << 20}, {PID: 2, Method: "smaps", PssAnon: 2000 << 10}}
	smaps := []procValue{{PID: 1, PssAnon: 1000 << 10}, {PID: 2, PssAnon: 2020 << 10}}
	tools := []toolRun{
		{Tool: toolFast.Name, Runs: []runStat{{WallNS: 2e8, UserNS: 1e8, SysNS: 1e8, MaxRSSKB: 20480}}, Values: [][]procValue{fast}},
		{Tool: toolSmaps.Name, Runs: []runStat{{WallNS: 3e9}}, Values: [][]procValue{smaps}},
		{Tool: toolSmem.Name, Runs: []runStat{{WallNS: 4e9, UserNS: 2e9, SysNS: 2e9}}},
	}
	a := agree(tools)
	if a.Fast != (pairStats{Compared: 2, EqualKB: 1, MaxRel: 20.0 / 2020}) || a.FastMethods["smaps"] != 1 {
		t.Errorf("agreement %+v", a)
	}
	b := &bench{cfg: config{Reps: 1}, results: []configResult{{Huge: "off", Shared: "4GB", Backends: 2, Tools: tools, Agreement: a}}}
	md := b.markdown()
	for _, want := range []string{"| off | 4GB | 2 |", "0.200 (0.200)", "5.0%", "1 / 2", "pagemap 1, smaps_rollup 1"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestRunChildPeakRSS: a child that touches 48 MiB is measured at least
// that, and /bin/true started by this process (after it touched 96 MiB)
// well under it: the peak RSS is the child's, not ours.
func TestRunChildPeakRSS(t *testing.T) {
	if _, err := os.Stat(timeBin); err != nil {
		t.Skip("GNU time not installed (apt-get install time)")
	}
	ballast := make([]byte, 96<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	st, _, err := runChild(context.Background(), []string{"/bin/true"})
	if err != nil || st.MaxRSSKB <= 0 || st.MaxRSSKB > 32<<10 {
		t.Errorf("/bin/true: peak RSS %d KiB, %v", st.MaxRSSKB, err)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	st, _, err = runChild(context.Background(), []string{py, "-c", "b = bytearray(48 << 20)"})
	if err != nil || st.MaxRSSKB < 48<<10 || st.MaxRSSKB > 96<<10 {
		t.Errorf("python3 touching 48 MiB: peak RSS %d KiB, %v", st.MaxRSSKB, err)
	}
	_ = ballast[len(ballast)-1]
}

// TestRunChildNoTime: without time(1), wait4's ru_maxrss would be this
// program's peak RSS (charged to a vfork'd child at exec), so none is
// reported; wall and CPU time still are.
func TestRunChildNoTime(t *testing.T) {
	saved := timeBin
	timeBin = "/nonexistent/time"
	defer func() { timeBin = saved }()
	st, _, err := runChild(context.Background(), []string{"/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"})
	if err != nil || st.MaxRSSKB != 0 || st.WallNS <= 0 || st.CPUNS() <= 0 {
		t.Errorf("runChild without time: %+v, %v", st, err)
	}
	r := &toolRun{Runs: []runStat{st}}
	if got := peakRSS(r); got != "-" {
		t.Errorf("peakRSS without a measurement = %q, want -", got)
	}
}
