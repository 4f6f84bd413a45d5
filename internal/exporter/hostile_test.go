package exporter

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// badName is a process name that is not UTF-8 and clears a screen.
const badName = "\xff\xfe\x1b[2J"

// TestHelperBadName is the process startBadName starts.
func TestHelperBadName(t *testing.T) {
	if os.Getenv("DBMEM_BADNAME_HELPER") != "1" {
		t.Skip("helper process of TestProcessNameNotUTF8")
	}
	name := []byte(badName + "\x00")
	if err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	time.Sleep(10 * time.Minute)
}

// TestProcessNameNotUTF8: a local user's process named with bytes that are
// not UTF-8, first in the OOM ranking, becomes an inert label: the scrape
// succeeds (client_golang's MustNewConstMetric panics on such a label,
// which took the exporter down).
func TestProcessNameNotUTF8(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperBadName$")
	cmd.Env = append(os.Environ(), "DBMEM_BADNAME_HELPER=1")
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("helper: %q, %v", line, err)
	}
	base, _ := serveLive(t, "")
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: %s\n%s", resp.Status, body)
	}
	if !strings.Contains(string(body), `comm="\\xff\\xfe\\x1b[2J"`) || strings.Contains(string(body), "\x1b") {
		t.Errorf("the process is not shown with an inert comm label:\n%s", grepLines(string(body), "oom_score"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
