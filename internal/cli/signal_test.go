package cli

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
	"github.com/dbmem/dbmem/internal/treetest"
)

// hungHost is treetest.HungHost's copy as dbmem's flags.
func hungHost(t *testing.T) []string {
	dir, _ := treetest.HungHost(t, filepath.Join("..", ".."))
	return []string{"--proc", filepath.Join(dir, "proc"), "--sys", filepath.Join(dir, "sys"), "--root", filepath.Join(dir, "root")}
}

func buildDbmem(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "dbmem")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/dbmem").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// stopAndWait sends SIGTERM and waits for the exit, at most a minute (a
// hung program fails the test instead of hanging it).
func stopAndWait(t *testing.T, name string, cmd *exec.Cmd) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-done:
		t.Logf("%s ended %s after SIGTERM (%v)", name, time.Since(start).Round(time.Millisecond), err)
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-done
		t.Errorf("%s still ran a minute after SIGTERM, stuck in a read", name)
	}
}

// TestSignalsEndBlockedWatchAndExporter: with a read that never returns
// (and deadlines set to an hour), SIGTERM ends watch and the exporter,
// even while a scrape waits.
func TestSignalsEndBlockedWatchAndExporter(t *testing.T) {
	bin, host := buildDbmem(t), hungHost(t)
	watch := exec.Command(bin, append(host, "watch", "--read-timeout", "1h", "--interval", "1s")...)
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the first tick is blocked in the FIFO by now
	stopAndWait(t, "watch", watch)

	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	exp := exec.Command(bin, append(host, "exporter", "--web.listen-address", addr, "--read-timeout", "1h", "--scrape-timeout", "1h", "--smaps-interval", "0")...)
	stderr, _ := exp.StderrPipe()
	if err := exp.Start(); err != nil {
		t.Fatal(err)
	}
	go bufio.NewReader(stderr).WriteTo(os.Stderr)
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	go http.Get("http://" + addr + "/metrics") // waits for the blocked collection
	time.Sleep(time.Second)
	stopAndWait(t, "exporter", exp)
}
