package oomlog_test

import (
	"fmt"
	"os"

	"github.com/dbmem/dbmem/internal/oomlog"
)

// Reads the real report of a PostgreSQL backend killed in a 128 MiB memory
// cgroup on kernel 6.18 (dmesg --time-format iso).
func ExampleParse() {
	f, err := os.Open("testdata/pg-backend-memcg-v1-kernel-6.18.44-fc-v769-dmesg-iso.txt")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	events, err := oomlog.Parse(f)
	if err != nil {
		panic(err)
	}
	for _, e := range events {
		v := e.Victim
		facts, _ := e.Facts()
		fmt.Printf("%s  %s OOM (limit %d MiB, usage %d MiB) in %s\n", e.Time.Wall.Format("2006-01-02 15:04:05.000000 MST"),
			e.Constraint, e.Memcg.LimitBytes>>20, e.Memcg.UsageBytes>>20, e.OOMMemcg)
		fmt.Printf("trigger: %s pid %d gfp_mask=%s order=%d\n", e.Trigger.Name, *e.Trigger.PID, e.Trigger.GFPMask, *e.Trigger.Order)
		// Fields a kernel does not print are nil; this 6.18 kill line prints them all.
		fmt.Printf("killed:  %s pid %d uid %d: anon %d KiB, file %d KiB, shmem %d KiB, page tables %d KiB\n",
			v.Name, v.PID, *v.UID, *v.AnonRSSBytes>>10, *v.FileRSSBytes>>10, *v.ShmemRSSBytes>>10, *v.PgtablesBytes>>10)
		fmt.Printf("shmem share of RSS %.1f%%, freed by the kill about %d KiB\n", *facts.ShmemShare*100, *facts.FreedBytes>>10)
		fmt.Printf("task table: %d rows, columns %v\n", len(e.Tasks), e.TaskColumns)
	}
	// Output:
	// 2026-11-22 21:57:26.829063 UTC  memcg OOM (limit 128 MiB, usage 128 MiB) in /process_api/590960fb8467697c6b15cd1717c18f69/dbmem-oomtest-3920-953927
	// trigger: postgres pid 4180 gfp_mask=0xcc0(GFP_KERNEL) order=0
	// killed:  postgres pid 4180 uid 101: anon 133504 KiB, file 62432 KiB, shmem 3536 KiB, page tables 616 KiB
	// shmem share of RSS 1.8%, freed by the kill about 134120 KiB
	// task table: 1 rows, columns [uid tgid total_vm rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj]
}
