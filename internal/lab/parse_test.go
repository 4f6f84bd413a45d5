package lab

import (
	"strings"
	"testing"
)

// Recorded from the host's PostgreSQL 15 postmaster, kernel 6.18.44-fc-v769.
const postmasterStat = "2233 (postgres) S 1 2233 2233 0 -1 4194304 4942 65162 0 24 8 16 140 144 20 0 1 0 4941 222543872 7666 " +
	"18446744073709551615 94073784205312 94073789661657 140735472880304 0 0 0 0 24129536 84487 1 0 0 17 1 0 0 0 0 0 " +
	"94073792141392 94073792359114 94073969147904 140735472881310 140735472881432 140735472881432 140735472881620 0\n"

func TestParseChildFaults(t *testing.T) {
	got, err := parseChildFaults(postmasterStat)
	if err != nil || got != (childFaults{Min: 65162, Maj: 24}) {
		t.Fatalf("got %+v, %v; want cminflt 65162, cmajflt 24", got, err)
	}
	odd := strings.Replace(postmasterStat, "(postgres)", "(a) b (c)", 1)
	if got, err := parseChildFaults(odd); err != nil || got.Min != 65162 {
		t.Errorf("comm with spaces and parentheses: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "12 (x) S 1 2 3", "2233 (postgres) S 1 2 3 4 5 6 7 x 9 y"} {
		if _, err := parseChildFaults(bad); err == nil {
			t.Errorf("parseChildFaults(%q): no error", bad)
		}
	}
}

func FuzzParseChildFaults(f *testing.F) {
	f.Add(postmasterStat)
	f.Add("1 ()) R 0 0 0 0 0 0 0 1 0 2")
	f.Fuzz(func(t *testing.T, s string) { parseChildFaults(s) })
}

// Recorded with perf 6.1.187 on kernel 6.18.44-fc-v769 (a VM without a
// PMU): `perf stat -x , -e dTLB-load-misses,dTLB-loads true` and
// `-e page-faults,task-clock true`.
const perfNoPMU = "<not supported>,,dTLB-load-misses,0,100.00,,\n<not supported>,,dTLB-loads,0,100.00,,\n"
const perfSoftware = "48,,page-faults,2839768,100.00,16.903,K/sec\n2.84,msec,task-clock,2839768,100.00,0.073,CPUs utilized\n"

func TestParsePerfCSV(t *testing.T) {
	if got := parsePerfCSV(perfNoPMU); len(got) != 0 {
		t.Errorf("unsupported events counted: %v", got)
	}
	got := parsePerfCSV(perfSoftware + "\n# comment\n12,,dTLB-loads:u,1,100.00,,\n")
	if got["page-faults"] != 48 || got["dTLB-loads"] != 12 {
		t.Errorf("got %v; want page-faults 48 and dTLB-loads 12", got)
	}
	if _, ok := got["task-clock"]; ok {
		t.Error("a fractional count (task-clock 2.84) was read as an integer count")
	}
}

func FuzzParsePerfCSV(f *testing.F) {
	f.Add(perfNoPMU)
	f.Add(perfSoftware)
	f.Fuzz(func(t *testing.T, s string) { parsePerfCSV(s) })
}

// Recorded from /proc/zoneinfo of kernel 6.18.44-fc-v769 (2 CPUs), cut to
// the lines around the pagesets and one zone's counters.
const zoneinfo = `Node 0, zone   Normal
  pages free     5246339
        nr_free_pages 5246339
  pagesets
    cpu: 0
              count: 4384
              high:  20797
              batch: 63
  vm stats threshold: 40
    cpu: 1
              count: 16858
              high:  216629
              batch: 63
  vm stats threshold: 40
  node_unreclaimable:  0
Node 0, zone  Movable
  pages free     0
  pagesets
`

func TestParsePCPPages(t *testing.T) {
	if n, err := parsePCPPages(strings.NewReader(zoneinfo)); err != nil || n != 4384+16858 {
		t.Errorf("got %d, %v; want %d", n, err, 4384+16858)
	}
	if _, err := parsePCPPages(strings.NewReader("    cpu: 0\n              count: x\n")); err == nil {
		t.Error("a count that is not a number was accepted")
	}
}

func FuzzParsePCPPages(f *testing.F) {
	f.Add(zoneinfo)
	f.Fuzz(func(t *testing.T, s string) { parsePCPPages(strings.NewReader(s)) })
}
