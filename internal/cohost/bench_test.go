package cohost

import (
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

// BenchmarkReadHost reads this host's processes as every snapshot does
// (the stat and cmdline of each; MongoDB's log only where mongod runs).
func BenchmarkReadHost(b *testing.B) {
	fs := linux.DefaultFS()
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		Read(fs)
	}
	b.ReportMetric(float64(len(pids)), "processes")
}
