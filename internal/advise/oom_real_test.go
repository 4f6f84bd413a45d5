package advise

import (
	"github.com/dbmem/dbmem/internal/measure"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestOOMScoreMatchesKernel predicts /proc/PID/oom_score of every process
// of this host from its status and compares with what the kernel prints
// (kernel 5.9+ formula). The kernel's RSS counters are per-CPU
// approximations read at a slightly different moment: allow 2 points.
func TestOOMScoreMatchesKernel(t *testing.T) {
	fs := linux.DefaultFS()
	rel, err := linux.KernelRelease(fs)
	if err != nil {
		t.Fatal(err)
	}
	if major, minor := linux.KernelVersion(rel); major < 5 || major == 5 && minor < 9 {
		t.Skipf("kernel %s prints oom_score on the pre-5.9 scale", rel)
	}
	m, err := linux.ReadMeminfo(fs)
	if err != nil {
		t.Fatal(err)
	}
	total, ok := TotalPages(m)
	if !ok {
		t.Fatal("this kernel's meminfo has MemTotal and SwapTotal")
	}
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, pid := range pids {
		p, _, err := linux.ReadProcess(fs, pid, measure.Status)
		if err != nil {
			continue
		}
		b, ok := Badness(p, total)
		if !ok {
			continue
		}
		checked++
		if p.OOMScore == nil {
			continue // exited between the reads
		}
		if d := OOMScore(b, total) - int64(*p.OOMScore); d < -2 || d > 2 {
			t.Errorf("pid %d (%s): predicted oom_score %d, kernel printed %d (rss %d, pte %d, swap %d, adj %d)",
				pid, p.Comm, OOMScore(b, total), *p.OOMScore, *p.Status.VmRSSBytes, *p.Status.VmPTEBytes, *p.Status.VmSwapBytes, *p.OOMScoreAdj)
		}
	}
	if checked < 5 {
		t.Fatalf("only %d processes checked", checked)
	}
	t.Logf("%d processes: predicted oom_score within 2 of the kernel's", checked)
}
