package kerneltest

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
)

func swappiness(t *testing.T) int {
	t.Helper()
	v, err := hostchange.ReadInt(SysctlPath("vm.swappiness"))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestSetRestoresAfterTheTest(t *testing.T) {
	Lock(t)
	before := swappiness(t)
	want := (before + 7) % 100
	t.Run("change", func(t *testing.T) {
		if got := Sysctl(t, "vm.swappiness", strconv.Itoa(want)); got != strconv.Itoa(want) {
			t.Fatalf("kernel reads back %s, want %d", got, want)
		}
	})
	if after := swappiness(t); after != before {
		t.Errorf("vm.swappiness = %d after the subtest, want %d restored", after, before)
	}
}

func TestReplayJournalRestoresInterruptedRun(t *testing.T) {
	Lock(t)
	path := SysctlPath("vm.swappiness")
	orig := swappiness(t)
	t.Cleanup(func() { os.WriteFile(path, []byte(strconv.Itoa(orig)), 0o644) })
	saved := JournalPath
	JournalPath = filepath.Join(t.TempDir(), "journal")
	t.Cleanup(func() { JournalPath = saved })

	// A run that was killed after journaling and changing the value.
	j, err := hostchange.NewJournal(JournalPath, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Add(hostchange.Entry{Kernel: &hostchange.Kernel{Setting: hostchange.Sysctl("vm.swappiness"), Before: strconv.Itoa(orig)}}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(strconv.Itoa((orig+3)%100)), 0o644)
	if _, err := hostchange.Replay(linux.DefaultFS(), JournalPath); err != nil {
		t.Fatal(err)
	}
	if got := swappiness(t); got != orig {
		t.Errorf("replay left vm.swappiness at %d, want %d", got, orig)
	}
	if _, err := os.Stat(JournalPath); !os.IsNotExist(err) {
		t.Errorf("journal not removed after replay: %v", err)
	}
}

func TestNestedLockDoesNotDeadlock(t *testing.T) {
	Lock(t)
	t.Run("inner", func(t *testing.T) { Lock(t) })
}

func TestAddHugePagesRestoresThePool(t *testing.T) {
	Lock(t)
	path := SysctlPath("vm.nr_hugepages")
	before, err := hostchange.ReadInt(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("grow", func(t *testing.T) {
		want := AddHugePages(t, 2)
		if got, _ := hostchange.ReadInt(path); want != before+2 || got != want {
			t.Errorf("AddHugePages(2) from %d: asked %d, pool %d", before, want, got)
		}
	})
	if after, _ := hostchange.ReadInt(path); after != before {
		t.Errorf("vm.nr_hugepages = %d after the subtest, want %d restored", after, before)
	}
}
