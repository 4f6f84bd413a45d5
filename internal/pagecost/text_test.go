package pagecost

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestAnonymousPageInText gives a real process anonymous pages in its
// program and library text, the way a debugger's breakpoint does (ptrace
// writes a word of text back unchanged: copy-on-write makes the page
// anonymous). sleep's own text is small and read in the first round;
// libc's is large and left out of it: the fast path must notice that
// RssAnon is short, read the text, and equal smaps_rollup.
func TestAnonymousPageInText(t *testing.T) {
	requireRoot(t)
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	pid := cmd.Process.Pid
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	own, libc := waitForText(t, pid, "sleep"), waitForText(t, pid, "libc.so.6")

	before := measureOne(t, pid, MethodFast)
	if before.Scan.TextRead {
		t.Errorf("untouched process: text read; want it left out (RssAnon %d, Pss_Anon %d)", *before.RssAnonBytes, before.PssAnonBytes)
	}
	for _, step := range []struct {
		name     string
		addr     uintptr
		textRead bool
	}{{"sleep's own (small) text", own, false}, {"libc's (large) text", libc, true}} {
		pokeTextWord(t, pid, step.addr)
		fast, smaps := measureOne(t, pid, MethodFast), measureOne(t, pid, MethodSmaps)
		t.Logf("after a write to %s: Pss_Anon %d kB (smaps_rollup %d kB), text read %v",
			step.name, fast.PssAnonBytes>>10, smaps.PssAnonBytes>>10, fast.Scan.TextRead)
		if fast.Scan.TextRead != step.textRead || fast.PssAnonBytes>>10 != smaps.PssAnonBytes>>10 {
			t.Errorf("after a write to %s: fast Pss_Anon %d kB, text read %v; smaps_rollup %d kB: want equal, text read %v",
				step.name, fast.PssAnonBytes>>10, fast.Scan.TextRead, smaps.PssAnonBytes>>10, step.textRead)
		}
		if fast.PssAnonBytes < before.PssAnonBytes+4096 {
			t.Errorf("Pss_Anon %d -> %d bytes: want at least one more anonymous page", before.PssAnonBytes, fast.PssAnonBytes)
		}
		before = fast
	}
}

func measureOne(t *testing.T, pid int, m Method) Cost {
	t.Helper()
	costs, skipped, err := Measure(linux.DefaultFS(), []int{pid}, Options{Method: m, AlwaysPagemap: true})
	if err != nil || len(costs) != 1 {
		t.Fatalf("measure %d with %v: %v, skipped %v", pid, m, err, skipped)
	}
	return costs[0]
}

// waitForText returns the start of the process's first executable
// mapping of a file whose path ends in name, once it has exec'd and sleeps
// in clock_nanosleep (system call 230 on x86-64): its memory no longer
// changes.
func waitForText(t *testing.T, pid int, name string) uintptr {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		sc, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
		if f := strings.Fields(string(sc)); len(f) == 0 || f[0] != "230" {
			continue
		}
		maps, err := linux.ReadMaps(linux.DefaultFS(), pid)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range maps {
			if m.Perms == "r-xp" && strings.HasSuffix(m.Path, "/"+name) {
				return uintptr(m.Start)
			}
		}
	}
	t.Fatalf("process %d has no r-xp mapping of %s", pid, name)
	return 0
}

// pokeTextWord attaches to pid with ptrace, writes the word at addr back
// unchanged and detaches: the process runs on as before, with one
// anonymous copy of that page of text.
func pokeTextWord(t *testing.T, pid int, addr uintptr) {
	t.Helper()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := syscall.PtraceAttach(pid); err != nil {
		t.Fatalf("ptrace attach %d: %v", pid, err)
	}
	defer syscall.PtraceDetach(pid)
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil || !ws.Stopped() {
		t.Fatalf("wait for %d to stop: %v (status %v)", pid, err, ws)
	}
	word := make([]byte, 8)
	if _, err := syscall.PtracePeekText(pid, addr, word); err != nil {
		t.Fatalf("peek %d at %#x: %v", pid, addr, err)
	}
	if _, err := syscall.PtracePokeText(pid, addr, word); err != nil {
		t.Fatalf("poke %d at %#x: %v", pid, addr, err)
	}
}
