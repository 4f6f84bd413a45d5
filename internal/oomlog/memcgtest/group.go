package memcgtest

import (
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/memcg"
)

// Group is a memory cgroup made for one test: internal/memcg's, placed
// where `dbmem lab oom` would place its own.
type Group = memcg.Group

var seq atomic.Int64

// New creates a memory cgroup limited to limitBytes (swap included) below
// the test process's own memory cgroup, removed when the test ends. It
// skips the test when not root or when no memory controller is available.
func New(t testing.TB, limitBytes uint64) *Group {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creating a memory cgroup needs root")
	}
	g, err := memcg.Create("/sys", fmt.Sprintf("dbmem-oomtest-%d-%d", os.Getpid(), seq.Add(1)), limitBytes)
	if err != nil {
		t.Skipf("no usable memory cgroup: %v", err)
	}
	t.Cleanup(func() {
		if err := g.Remove(2 * time.Minute); err != nil {
			t.Errorf("remove test cgroup %s: %v", g.Dir, err)
		}
	})
	return g
}
