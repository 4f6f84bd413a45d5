// Package corpus checks dbmem against the partial and old-kernel inputs
// people post publicly (testdata/partial: meminfo, status, smaps_rollup
// and sysfs pools, each cited in INDEX.md). Each case places its inputs in
// a file tree (Build) and runs it through report, check, plan and the
// exporter; the tests compare what they say with expectations.txt, the
// reading of each input a senior DBA wrote before dbmem was run on it
// (ParseExpectations), and remove every line of complete files one at a
// time to show that a missing line never turns into a 0.
package corpus
