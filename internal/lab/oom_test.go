package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
)

// oomHostState is what `lab oom` may touch; it must be the same after.
type oomHostState struct {
	Overcommit, Ratio, KBytes, NrHugepages string
	Cgroups                                []string
	Postmasters                            int
	JournalExists                          bool
}

func readOOMHostState(t *testing.T, base, journal string) oomHostState {
	t.Helper()
	get := func(name string) string {
		v, err := linux.ReadSysctl(linux.DefaultFS(), name)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	s := oomHostState{Overcommit: get("vm.overcommit_memory"), Ratio: get("vm.overcommit_ratio"),
		KBytes: get("vm.overcommit_kbytes"), NrHugepages: get("vm.nr_hugepages")}
	s.Cgroups = labCgroups(t)
	s.Postmasters = len(postmastersUnder(t, base))
	_, err := os.Stat(journal)
	s.JournalExists = err == nil
	return s
}

// labCgroups lists the memory cgroups this process's lab runs made
// (dbmem-lab-oom-<this PID>) anywhere under /sys/fs/cgroup.
func labCgroups(t *testing.T) []string {
	t.Helper()
	var out []string
	want := CgroupPrefix + itoa(os.Getpid())
	filepath.WalkDir("/sys/fs/cgroup", func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && filepath.Base(p) == want {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestQuickOOM runs `dbmem lab oom --quick` against real PostgreSQL in a
// real memory cgroup: the kernel kills the runaway backend inside the
// cgroup, the postmaster restarts, the post-mortem explains it; then, with
// the emulated protection, the query fails with "out of memory" and every
// session stays. Every setting and the cgroup are as before afterwards.
// Its duration is logged, not asserted.
func TestQuickOOM(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("dbmem lab oom needs root (memory cgroup, kernel log)")
	}
	kerneltest.Lock(t)
	base, journal := labDirs(t)
	before := readOOMHostState(t, base, journal)
	start := time.Now()
	res, err := RunOOM(context.Background(), OOMOptions{Quick: true, BaseDir: base, JournalPath: journal, Progress: NewProgress(testLog{t}, false)})
	took := time.Since(start)
	var out bytes.Buffer
	OOMText(&out, res)
	t.Logf("lab oom --quick took %s:\n%s", took.Round(time.Second), out.String())
	if err != nil {
		t.Fatalf("lab oom --quick: %v", err)
	}
	if after := readOOMHostState(t, base, journal); !sameState(after, before) {
		t.Errorf("host changed by the lab: before %+v, after %+v", before, after)
	}
	b, _ := json.MarshalIndent(res, "", "  ")
	os.WriteFile("/tmp/oom-quick.json", b, 0o644)
	_ = strings.Contains
}

func sameState(a, b oomHostState) bool {
	return a.Overcommit == b.Overcommit && a.Ratio == b.Ratio && a.KBytes == b.KBytes && a.NrHugepages == b.NrHugepages &&
		len(a.Cgroups) == len(b.Cgroups) && a.Postmasters == b.Postmasters && a.JournalExists == b.JournalExists
}

func itoa(n int) string { return strconv.Itoa(n) }
