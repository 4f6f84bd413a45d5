package plan

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/treetest"
)

func statusFile(anonKB, swapKB string) string {
	return "Name:\tx\nState:\tS\nVmSize:\t100000 kB\nRssAnon:\t" + anonKB + " kB\nVmSwap:\t" + swapKB + " kB\n"
}

func pgProc(pid int, anonKB uint64) postgres.Proc {
	var p postgres.Proc
	p.PID = pid
	a, s := anonKB<<10, uint64(0)
	p.Status = linux.Status{HasMM: true, RssAnonBytes: &a, VmSwapBytes: &s}
	return p
}

// TestCoHostedOnceForEveryInstance: a host with another program (pid 5,
// 100 MiB anonymous + 10 MiB swapped), a kernel thread (pid 2) and two
// instances. Each instance's co-hosted memory is the program's and the
// other instance's; the instances' processes count with the status the
// snapshot read (their status files here say otherwise), and the host is
// read once for both.
func TestCoHostedOnceForEveryInstance(t *testing.T) {
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{
		"5/status":  statusFile("102400", "10240"),
		"2/status":  "Name:\tkthreadd\nState:\tS\n",
		"10/status": statusFile("999999", "0"), "11/status": statusFile("999999", "0"),
		"20/status": statusFile("999999", "0"),
	})
	fs := linux.FS{Proc: root, Sys: filepath.Join(root, "sys"), Root: root}
	a := &postgres.Instance{PostmasterPID: 10, Processes: []postgres.Proc{pgProc(10, 4096), pgProc(11, 2048)}}
	b := &postgres.Instance{PostmasterPID: 20, Processes: []postgres.Proc{pgProc(20, 1024)}}
	r := Request{FS: fs, Snapshot: &snapshot.Snapshot{Postgres: []*postgres.Instance{a, b}}, anon: &hostAnon{}}
	for _, c := range []struct {
		in     *postgres.Instance
		wantKB uint64
		n      int
	}{{a, 102400 + 10240 + 1024, 2}, {b, 102400 + 10240 + 4096 + 2048, 3}} {
		got, from := coHosted(fs, r, c.in)
		if got == nil || *got != c.wantKB<<10 || !strings.Contains(from, "of "+strconv.Itoa(c.n)+" other processes") {
			t.Errorf("instance %d: co-hosted %v (%s), want %d kB of %d processes", c.in.PostmasterPID, got, from, c.wantKB, c.n)
		}
	}
	treetest.Write(t, root, map[string]string{"5/status": statusFile("1", "0")})
	if got, _ := coHosted(fs, r, a); *got != (102400+10240+1024)<<10 {
		t.Errorf("the host was read again for the second instance: %d kB", *got>>10)
	}
}
