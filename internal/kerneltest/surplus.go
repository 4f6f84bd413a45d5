package kerneltest

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

// overcommitHugePath is vm.nr_overcommit_hugepages.
const overcommitHugePath = "/proc/sys/vm/nr_overcommit_hugepages"

// drainWait bounds the wait for a shrunk pool's surplus pages to be freed.
const drainWait = 2 * time.Minute

// surplusPath names the surplus_hugepages file of the pool a path sets
// ("" when the path is not a pool). A pool shrunk below the pages in use
// keeps them as surplus pages until they are freed: a server that has
// exited can hold its huge pages a moment longer (its io_uring rings are
// torn down after it is reaped).
func surplusPath(path string) string {
	if path == hostchange.NrHugepagesPath {
		kb, err := defaultHugePageKB()
		if err != nil {
			return ""
		}
		return fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB/surplus_hugepages", kb)
	}
	if strings.HasPrefix(path, "/sys/kernel/mm/hugepages/") && filepath.Base(path) == "nr_hugepages" {
		return filepath.Join(filepath.Dir(path), "surplus_hugepages")
	}
	return ""
}

func defaultHugePageKB() (int, error) {
	m, err := linux.ReadMeminfo(linux.DefaultFS())
	if err != nil {
		return 0, err
	}
	if m.HugepagesizeBytes == nil {
		return 0, fmt.Errorf("no Hugepagesize in /proc/meminfo")
	}
	return int(*m.HugepagesizeBytes / 1024), nil
}

// waitSurplus waits, polling, until the pool's surplus pages are back to
// what they were before the test, so that the next holder of the lock
// finds the pool as it was and not pages still being freed. It logs what
// it waited for; pages still held after drainWait are reported, not
// waited for longer.
func waitSurplus(t testing.TB, path string, before int) {
	if path == "" {
		return
	}
	start := time.Now()
	for {
		n, err := hostchange.ReadInt(path)
		if err != nil || n <= before {
			if d := time.Since(start); d > time.Second {
				t.Logf("waited %s for the pool's surplus huge pages to be freed (%s)", d.Round(time.Millisecond), path)
			}
			return
		}
		if time.Since(start) > drainWait {
			t.Logf("%s is still %d after %s (%d before the test): pages of the pool are still in use", path, n, drainWait, before)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// settlePool waits, once the lock is taken, for surplus pages a previous
// holder left while they are freed (a holder that shrank the pool under
// pages still in use, before this wait existed). Without overcommitted
// huge pages (vm.nr_overcommit_hugepages 0) a surplus page exists only so.
func settlePool(t testing.TB) {
	if n, err := hostchange.ReadInt(overcommitHugePath); err != nil || n != 0 {
		return
	}
	waitSurplus(t, surplusPath(hostchange.NrHugepagesPath), 0)
}
