package linux

import (
	"github.com/dbmem/dbmem/internal/measure"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/hostchange/hostiletest"
	"github.com/dbmem/dbmem/internal/treetest"
)

// Nobody's process with 5 MB of arguments (a stack limit of 64 MiB allows
// 16 MiB): its command line is read up to MaxCmdlineBytes and marked cut.
// 51 of them made root's report take 855 MB and --json write 267 MB.
func TestCmdlineIsCappedWhenRead(t *testing.T) {
	if syscall.Geteuid() != 0 {
		t.Skip("needs root to act as nobody")
	}
	out := hostiletest.MustNobody(t, `ulimit -s 65536
a=$(head -c 100000 /dev/zero | tr '\0' a); set --; for i in $(seq 50); do set -- "$@" "$a"; done
setsid /bin/sh -c 'sleep 600; :' dbmem-big-argv "$@" >/dev/null 2>&1 & echo $!`)
	pid, err := strconv.Atoi(out)
	if err != nil {
		t.Fatalf("pid %q: %v", out, err)
	}
	t.Cleanup(func() { syscall.Kill(-pid, syscall.SIGKILL) })
	var args []string
	for end := time.Now().Add(time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if args, err = ReadCmdline(DefaultFS(), pid); err == nil && len(args) > 3 && args[3] == "dbmem-big-argv" {
			break
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p, _, err := ReadProcess(DefaultFS(), pid, measure.Status)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(strings.Join(args, "\x00")); n > MaxCmdlineBytes+len(CutMark)+1 || args[len(args)-1] != CutMark || len(args) < 3 {
		t.Errorf("%d bytes in %d arguments, last %.20q: want at most %d and the cut marked", n, len(args), args[len(args)-1], MaxCmdlineBytes)
	}
	if !strings.HasSuffix(p.Title, CutMark) || len(p.Title) > 2*MaxCmdlineBytes {
		t.Errorf("title of %d bytes ends %q", len(p.Title), p.Title[max(0, len(p.Title)-30):])
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading the process allocated %d MiB", alloc>>20)
	}
}

// A bundle's cmdline of 393 KB, NUL-separated, is read as a command line
// cut at MaxCmdlineBytes: at most 32 Ki arguments.
func TestBundleCmdlineIsCapped(t *testing.T) {
	mem := &treetest.Mem{Files: map[string]string{"/p/9/cmdline": strings.Repeat("a\x00", 393_000/2)}}
	args, err := ReadCmdline(FS{Proc: "/p", Files: mem}, 9)
	if err != nil {
		t.Fatal(err)
	}
	if len(args) != MaxCmdlineBytes/2+1 || args[len(args)-1] != CutMark {
		t.Errorf("%d arguments, last %q", len(args), args[len(args)-1])
	}
}
