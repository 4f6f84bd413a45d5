package postmortem

import (
	"io"
	"os"
	"testing"
	"time"
)

// FuzzAnalyze feeds arbitrary kernel and database logs to Analyze and the
// text renderer: they must not panic.
func FuzzAnalyze(f *testing.F) {
	for _, p := range []string{pgKernelISO, checkpointer, seedGlobal49} {
		f.Add(fileText(f, p), fileText(f, pgServerLog), "UTC")
	}
	for _, pair := range [][2]string{{"s02-cloudpanel-333-mariadb-kernel-and-unit-oom-kill", "r01-theskythelimit-2005-ora-04030-ckpt-terminated"},
		{"o01-systemd-20690-oomd-testbloat-attempting", "m01-docker-mysql-248-5.7-mmap-errno12-compose"}} {
		k, _ := os.ReadFile("testdata/corpus/" + pair[0] + ".log")
		d, _ := os.ReadFile("testdata/corpus/" + pair[1] + ".log")
		f.Add(k, d, "UTC")
	}
	f.Add([]byte("[ 1.0] Out of memory: Killed process 1 (x)"), []byte("LOG:  server process (PID 1) was terminated by signal 9"), "Europe/Paris")
	f.Fuzz(func(t *testing.T, kernel, db []byte, zone string) {
		logs := []Log{{Kind: KindKernel, Source: "k", State: StateRead, Text: kernel, Zone: zone, ModTime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
			{Kind: KindPostgres, Source: "p", State: StateRead, Text: db}, {Source: "m", State: StateRead, Text: db}}
		r := Analyze(Input{Logs: logs, Zone: zone, Last: 3})
		if err := Text(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		if err := JSON(io.Discard, r); err != nil {
			t.Fatal(err)
		}
		KernelExcerpt(logs[0], nil)
	})
}

func FuzzStrftimeRegexp(f *testing.F) {
	f.Add("postgresql-%Y-%m-%d_%H%M%S.log")
	f.Add("%")
	f.Add("a%%b%q[")
	f.Fuzz(func(t *testing.T, pattern string) {
		re, err := strftimeRegexp(pattern)
		if err != nil {
			return
		}
		if !re.MatchString(pattern) && isLiteral(pattern) {
			t.Errorf("literal %q does not match itself", pattern)
		}
	})
}

func isLiteral(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			return i == len(s)-1
		}
	}
	return true
}
