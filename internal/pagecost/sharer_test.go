package pagecost

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildSharer compiles testdata/sharer.c into dir (gcc is on every machine
// of this project's kind; the test is skipped without it).
func buildSharer(t testing.TB, dir string) string {
	t.Helper()
	gcc, err := exec.LookPath("gcc")
	if err != nil {
		t.Skip("gcc not found: the sharer helper process is written in C (apt-get install gcc)")
	}
	src, _ := filepath.Abs(filepath.Join("testdata", "sharer.c"))
	bin := filepath.Join(dir, "sharer")
	if out, err := exec.Command(gcc, "-O1", "-Wall", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("compile %s: %v\n%s", src, err, out)
	}
	return bin
}

// sharerFamily is a running sharer process and its children.
type sharerFamily struct {
	Parent   int
	Children []int
}

// PIDs lists the parent then the children.
func (f sharerFamily) PIDs() []int { return append([]int{f.Parent}, f.Children...) }

// startSharer runs the sharer with (sharedMB, cowMB, privateMB, children,
// thpMB) and waits until every child is ready. It stops at cleanup.
func startSharer(t testing.TB, bin string, args ...int) sharerFamily {
	t.Helper()
	strs := make([]string, len(args))
	for i, a := range args {
		strs[i] = strconv.Itoa(a)
	}
	cmd := exec.Command(bin, strs...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	t.Cleanup(func() { stopSharer(cmd, stdin.Close) })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	fields := strings.Fields(line)
	if err != nil || len(fields) == 0 || fields[0] != "ready" {
		t.Fatalf("sharer did not get ready: %q %v", line, err)
	}
	fam := sharerFamily{Parent: cmd.Process.Pid}
	for _, f := range fields[1:] {
		pid, _ := strconv.Atoi(f)
		fam.Children = append(fam.Children, pid)
	}
	return fam
}

// stopSharer closes the sharer's stdin (it kills its children and exits)
// and kills it by PID if it does not exit.
func stopSharer(cmd *exec.Cmd, closeStdin func() error) {
	closeStdin()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		<-done
	}
}
