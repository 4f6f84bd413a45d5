package pagecost

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// TestExitedAndKernelThreads measures a process that has exited (reaped),
// a zombie and kthreadd: all are skipped with a typed reason, none is an
// error, and the live process is measured.
func TestExitedAndKernelThreads(t *testing.T) {
	reaped := exec.Command("sleep", "60")
	zombie := exec.Command("sleep", "60")
	live := exec.Command("sleep", "60")
	for _, c := range []*exec.Cmd{reaped, zombie, live} {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	reaped.Process.Kill()
	reaped.Wait()
	zombie.Process.Kill() // not waited for until the end: a zombie meanwhile
	waitZombie(t, zombie.Process.Pid)
	t.Cleanup(func() { zombie.Wait(); live.Process.Kill(); live.Wait() })
	pids := []int{reaped.Process.Pid, zombie.Process.Pid, 2, live.Process.Pid}
	for _, m := range []Method{MethodFast, MethodSmaps, MethodStatus} {
		costs, skipped, err := Measure(linux.DefaultFS(), pids, Options{Method: m, AlwaysPagemap: true})
		if err != nil || len(costs) != 1 || costs[0].PID != live.Process.Pid || len(skipped) != 3 {
			t.Fatalf("%v: costs %+v, skipped %v, err %v", m, costs, skipped, err)
		}
		if !errors.Is(skipped[0].Err, ErrExited) {
			t.Errorf("%v: reaped process: %v, want ErrExited", m, skipped[0].Err)
		}
		for _, s := range skipped[1:] {
			if !errors.Is(s.Err, ErrNoUserMemory) && !errors.Is(s.Err, ErrExited) {
				t.Errorf("%v: PID %d: %v, want ErrNoUserMemory or ErrExited", m, s.PID, s.Err)
			}
		}
	}
}

// waitZombie waits until pid is a zombie (state Z in /proc/PID/stat).
func waitZombie(t *testing.T, pid int) {
	t.Helper()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if i := bytes.LastIndexByte(b, ')'); i > 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return
		}
	}
	t.Fatalf("PID %d did not become a zombie within 2 minutes", pid)
}
