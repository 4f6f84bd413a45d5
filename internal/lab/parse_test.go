package lab

import "testing"

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
