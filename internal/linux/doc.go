// Package linux reads the kernel's view of memory, and is the one place
// where kernel and cgroup files are parsed: /proc/meminfo, vmstat,
// zoneinfo, btime, the huge page pools and transparent huge page settings
// in /sys, vm sysctls, cgroup memory and hugetlb limits (every page size),
// and per process status, stat (with the children's faults), comm,
// cmdline, limits, maps, smaps, smaps_rollup and oom_score.
//
// Every reader takes an FS (roots for /proc, /sys and other host files) so a
// captured tree or a test fixture is read exactly like the live host. Parsing
// is separate from reading: parseX functions take the file's text, never
// panic, and are fuzzed. Sizes are converted to bytes at parse time and carry
// the unit in their name. Fields that only some kernel versions print are
// pointers, nil when absent.
//
// We do not use github.com/prometheus/procfs for these files: its
// smaps_rollup type (v0.23) has no Pss_Anon, Pss_File or Pss_Shmem, the very
// numbers dbmem is about, and its meminfo parser rejects the whole file when
// one line has an unexpected shape. The formats are simple "Key: value kB"
// lines, parsed here by one tolerant function (kv.go).
//
// Missing data is not an error: readers return Gaps (what, why, and a typed
// Kind: absent, denied, timeout, failed) so reports can say which numbers
// are missing; callers decide on the Kind, never on the words of Why. A process that exits while it is read
// gives an error for which IsGone is true; callers skip it silently.
package linux
