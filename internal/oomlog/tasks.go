package oomlog

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// The task table headers, as mm/oom_kill.c printed them ("[ pid ]" became
// "[  pid  ]" in 4.15):
//
//	2.6.36-3.4   [ pid ]   uid  tgid total_vm      rss cpu oom_adj oom_score_adj name
//	3.5-3.19     [ pid ]   uid  tgid total_vm      rss nr_ptes swapents oom_score_adj name
//	4.0-4.14     [ pid ]   uid  tgid total_vm      rss nr_ptes nr_pmds swapents oom_score_adj name
//	4.15-6.7     [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name
//	6.8+         [  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name
//
// Before 2.6.36 the header ended "cpu oom_adj name". All counts are pages
// except pgtables_bytes; cpu is a CPU number, oom_adj the old -17..15 knob.
var (
	headerRe = regexp.MustCompile(`^\[ *pid *\] +(uid +tgid .*)$`)
	rowRe    = regexp.MustCompile(`^\[ *(\d+)\] +(-?\d.*)$`)
)

// parseHeader returns the column names between pid and name.
func parseHeader(body string) ([]string, bool) {
	if !strings.HasPrefix(body, "[") || !strings.Contains(body, "pid") {
		return nil, false
	}
	m := headerRe.FindStringSubmatch(strings.TrimRight(body, " "))
	if m == nil {
		return nil, false
	}
	cols := strings.Fields(m[1])
	if len(cols) > 0 && cols[len(cols)-1] == "name" {
		cols = cols[:len(cols)-1]
	}
	return cols, true
}

// fallbackColumns are assumed for rows whose header was cut off: the columns
// every layout has in the same place; the rest are read as "?".
var fallbackColumns = []string{"uid", "tgid", "total_vm", "rss"}

// parseRow reads one row given the header's columns.
func parseRow(body string, cols []string, pageSize uint64) (Task, bool) {
	if !strings.HasPrefix(body, "[") {
		return Task{}, false
	}
	m := rowRe.FindStringSubmatch(body)
	if m == nil {
		return Task{}, false
	}
	t := Task{}
	t.PID, _ = strconv.Atoi(m[1])
	nums, name := splitNumbers(m[2], len(cols))
	if len(nums) < len(cols) || (cols == nil && len(nums) < 5) || name == "" {
		return Task{}, false
	}
	if cols == nil {
		cols = guessColumns(len(nums))
	}
	for i, c := range cols {
		setColumn(&t, c, nums[i], pageSize)
	}
	t.Name = name
	return t, true
}

// splitNumbers takes n leading integers (all leading integers when n is 0)
// and returns the rest of the line as the process name.
func splitNumbers(s string, n int) ([]int64, string) {
	var nums []int64
	rest := s
	for n == 0 || len(nums) < n {
		rest = strings.TrimLeft(rest, " ")
		end := strings.IndexByte(rest, ' ')
		if end < 0 {
			break
		}
		v, err := strconv.ParseInt(rest[:end], 10, 64)
		if err != nil {
			break
		}
		nums = append(nums, v)
		rest = rest[end:]
	}
	return nums, strings.TrimSpace(rest)
}

// guessColumns names the columns of a row seen without its header: the
// first four and the last (oom_score_adj) sit in the same place in every
// layout.
func guessColumns(n int) []string {
	cols := append([]string(nil), fallbackColumns...)
	for len(cols) < n-1 {
		cols = append(cols, "?")
	}
	return append(cols, "oom_score_adj")
}

func setColumn(t *Task, col string, v int64, pageSize uint64) {
	pages := uint64(0)
	if v > 0 {
		pages = uint64(v)
	}
	switch col {
	case "uid":
		t.UID = int(v)
	case "tgid":
		t.TGID = int(v)
	case "total_vm":
		t.TotalVMBytes = pages * pageSize
	case "rss":
		t.RSSBytes = pages * pageSize
	case "rss_anon":
		t.RSSAnonBytes = U64(pages * pageSize)
	case "rss_file":
		t.RSSFileBytes = U64(pages * pageSize)
	case "rss_shmem":
		t.RSSShmemBytes = U64(pages * pageSize)
	case "pgtables_bytes":
		t.PgtablesBytes = U64(pages)
	case "nr_ptes", "nr_pmds":
		t.PgtablesBytes = U64(pages*pageSize + units.Deref(t.PgtablesBytes))
	case "swapents":
		t.SwapBytes = U64(pages * pageSize)
	case "oom_score_adj":
		t.OOMScoreAdj = Int(int(v))
	}
}
