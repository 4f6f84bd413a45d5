package lab

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// progressLine is one of pgbench's reports with -P 1 --progress-timestamp:
// "progress: 1795593553.947 s, 3085.0 tps, lat 1.273 ms stddev 0.412, 0 failed".
var progressLine = regexp.MustCompile(`^progress: ([0-9]+(?:\.[0-9]+)?) s, ([0-9]+(?:\.[0-9]+)?) tps`)

// abortLine is pgbench's word for a client whose connection died:
// "pgbench: error: client 3 aborted in command 4 (SQL) of script 0; ..."
// (without "pgbench: error: " before PostgreSQL 13).
var abortLine = regexp.MustCompile(`\bclient ([0-9]+) aborted in command\b`)

// parseProgress reads one progress report; ok is false for other lines.
func parseProgress(line string) (TPSSample, bool) {
	m := progressLine.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return TPSSample{}, false
	}
	sec, err1 := strconv.ParseFloat(m[1], 64)
	tps, err2 := strconv.ParseFloat(m[2], 64)
	if err1 != nil || err2 != nil || sec <= 0 || sec > 1e11 || tps < 0 || tps > 1e9 {
		return TPSSample{}, false
	}
	return TPSSample{At: time.Unix(0, int64(sec*1e9)), TPS: tps}, true
}

// abortedClient returns the client a line says aborted.
func abortedClient(line string) (int, bool) {
	m := abortLine.FindStringSubmatch(line)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// tpsOver is the mean throughput from from to to: the transactions of
// every report's second that overlaps the window, in proportion to the
// overlap, over the window's length. Seconds without a report (the server
// was down, pgbench had ended) count as none. nil when no report overlaps.
func tpsOver(ss []TPSSample, from, to time.Time) *float64 {
	if !to.After(from) {
		return nil
	}
	var tx float64
	covered := false
	for _, s := range ss {
		lo, hi := later(s.At.Add(-time.Second), from), earlier(s.At, to)
		if hi.After(lo) {
			tx += s.TPS * hi.Sub(lo).Seconds()
			covered = true
		}
	}
	if !covered {
		return nil
	}
	v := tx / to.Sub(from).Seconds()
	return &v
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// phases computes TPS before, during and after the runaway query. before
// runs from the first report to the query's start; during from the start
// to end (the query's end, or the server ready again after a crash); after
// from afterFrom to the last report.
func phases(ss []TPSSample, start, end, afterFrom time.Time) TPS {
	t := TPS{Samples: ss}
	if len(ss) == 0 {
		return t
	}
	first, last := ss[0].At.Add(-time.Second), ss[len(ss)-1].At
	t.Before = tpsOver(ss, first, start)
	t.During = tpsOver(ss, start, end)
	t.After = tpsOver(ss, afterFrom, last)
	return t
}
