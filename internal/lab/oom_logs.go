package lab

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/safeexec"
)

// kmsgMarker is a line the lab writes to the kernel log before the
// runaway query, so that what the kernel logs after it is this run's.
type kmsgMarker string

// markKernelLog writes a unique marker to /dev/kmsg (root only).
func markKernelLog(label string) (kmsgMarker, error) {
	m := kmsgMarker(fmt.Sprintf("dbmem lab oom: %s run, PID %d, %d", label, os.Getpid(), time.Now().UnixNano()))
	f, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0)
	if err != nil {
		return m, fmt.Errorf("open /dev/kmsg to mark the kernel log: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(string(m) + "\n"); err != nil {
		return m, fmt.Errorf("write to /dev/kmsg: %w", err)
	}
	return m, nil
}

// DmesgSource names the kernel log the lab reads, for the post-mortem.
const DmesgSource = "dmesg --time-format iso (after the lab's marker)"

// since returns what the kernel logged after the marker, with ISO stamps.
func (m kmsgMarker) since(ctx context.Context) (string, error) {
	out, err := safeexec.Output(ctx, safeexec.Command{Name: "dmesg", Args: []string{"--time-format", "iso"}})
	if _, cut := safeexec.Truncated(err); err != nil && !cut {
		return "", err
	}
	i := bytes.Index(out, []byte(m))
	if i < 0 {
		return "", fmt.Errorf("the lab's marker is not in dmesg any more (ring buffer overwritten?)")
	}
	rest := out[i:]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		return string(rest[j+1:]), nil
	}
	return "", nil
}

// waitKill waits until the kernel has logged the kill of pid, and a moment
// more for the rest of the report.
func (m kmsgMarker) waitKill(ctx context.Context, pid int, limit time.Duration) (string, error) {
	want := "Killed process " + strconv.Itoa(pid) + " "
	end := time.Now().Add(limit)
	for {
		s, err := m.since(ctx)
		if err != nil {
			return "", err
		}
		if strings.Contains(s, want) {
			time.Sleep(300 * time.Millisecond)
			return m.since(ctx)
		}
		if time.Now().After(end) {
			return s, fmt.Errorf("the kernel did not log %q within %s", strings.TrimSpace(want), limit)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// killLine is the kernel's kill line for pid in text, inert.
func killLine(text string, pid int) string {
	want := "Killed process " + strconv.Itoa(pid) + " "
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, want) {
			return inert.Text(strings.TrimSpace(l))
		}
	}
	return ""
}

// serverLogSince returns the server log from byte offset off on.
func serverLogSince(path string, off int64) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the cluster's server log: %w", err)
	}
	if off > int64(len(b)) {
		off = 0
	}
	return string(b[off:]), nil
}

func fileSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

// eventMarks are the server log's words for what the runaway query did.
var eventMarks = []string{
	"was terminated by signal", "Failed process was running", "terminating any other active server processes",
	"all server processes terminated; reinitializing", "database system was interrupted", "automatic recovery in progress",
	"redo done", "database system is ready to accept connections", "ERROR:  out of memory", "Failed on request of size",
}

// eventLines picks the server log's lines about the event, inert.
func eventLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for _, m := range eventMarks {
			if strings.Contains(l, m) {
				out = append(out, inert.Text(strings.TrimSpace(l)))
				break
			}
		}
	}
	return out
}
