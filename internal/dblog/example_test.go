package dblog_test

import (
	"fmt"
	"os"
	"time"

	"github.com/dbmem/dbmem/internal/dblog"
	"github.com/dbmem/dbmem/internal/oomlog"
)

// Pairs the real kernel report and PostgreSQL 15 log of one backend killed
// in a memory cgroup on this machine.
func ExampleMatch() {
	k, err := os.Open("../oomlog/testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg-iso.txt")
	if err != nil {
		panic(err)
	}
	defer k.Close()
	kills, err := oomlog.Parse(k)
	if err != nil {
		panic(err)
	}
	p, err := os.Open("testdata/postgresql-15-backend-oom-kill-stderr.log")
	if err != nil {
		panic(err)
	}
	defer p.Close()
	pg, err := dblog.ParsePostgres(p)
	if err != nil {
		panic(err)
	}
	for _, c := range pg.Crashes {
		// Figures a log does not print are nil (PIDs, signal) or zero times.
		fmt.Printf("%s: %s (PID %d) terminated by signal %d: %s\n", c.TimeRaw, c.Process, *c.KilledPID, *c.Signal, c.SignalName)
		fmt.Printf("  query: %s\n", c.Query)
		down, _ := c.Downtime()
		rec, _ := c.RecoveryDuration()
		fmt.Printf("  reinitialized after %v, ready after %v (recovery %v)\n", c.ReinitializedAt.Sub(c.Time), down, rec)
	}
	for _, m := range dblog.Match(kills, pg.Crashes, 5*time.Second) {
		fmt.Printf("kernel kill %d <-> crash %d by %s (certain %v), crash logged %v after the kill\n",
			m.Kernel, m.Crash, m.By, m.Certain, m.Delta)
	}
	// Output:
	// 2026-11-22 21:57:27.056 UTC: server process (PID 4180) terminated by signal 9: Killed
	//   query: SELECT sum(i) FROM (SELECT i FROM generate_series(1, 20000000) i ORDER BY i DESC) s
	//   reinitialized after 20ms, ready after 550ms (recovery 530ms)
	// kernel kill 0 <-> crash 0 by pid (certain true), crash logged 226.937ms after the kill
}
