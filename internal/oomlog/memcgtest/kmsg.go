package memcgtest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Marker is a line written to the kernel log so that what the kernel logs
// after it can be told apart from older messages.
type Marker struct{ Text string }

// Mark writes a unique marker line to /dev/kmsg (root only).
func Mark(label string) (Marker, error) {
	m := Marker{Text: fmt.Sprintf("dbmem-oomtest: %s %d.%d", label, os.Getpid(), time.Now().UnixNano())}
	f, err := os.OpenFile("/dev/kmsg", os.O_WRONLY, 0)
	if err != nil {
		return m, fmt.Errorf("open /dev/kmsg to write a marker: %w", err)
	}
	defer f.Close()
	if _, err := f.WriteString(m.Text + "\n"); err != nil {
		return m, fmt.Errorf("write marker to /dev/kmsg: %w", err)
	}
	return m, nil
}

// Since runs dmesg with args and returns the lines after the marker.
func (m Marker) Since(args ...string) (string, error) {
	out, err := exec.Command("dmesg", args...).Output()
	if err != nil {
		return "", fmt.Errorf("dmesg %s: %w", strings.Join(args, " "), err)
	}
	s := string(out)
	i := strings.Index(s, m.Text)
	if i < 0 {
		return "", fmt.Errorf("marker %q not in dmesg output (ring buffer overwritten?)", m.Text)
	}
	rest := s[i:]
	if j := strings.IndexByte(rest, '\n'); j >= 0 {
		return rest[j+1:], nil
	}
	return "", nil
}

// WaitFor polls dmesg until the text after the marker contains want (for
// example "Killed process 1234 ") and then a further settle time, so that
// the oom_reaper line is in too.
func (m Marker) WaitFor(want string, timeout, settle time.Duration) (string, error) {
	end := time.Now().Add(timeout)
	for {
		s, err := m.Since()
		if err != nil {
			return "", err
		}
		if strings.Contains(s, want) {
			time.Sleep(settle)
			return m.Since()
		}
		if time.Now().After(end) {
			return s, fmt.Errorf("%q not logged within %v after the marker", want, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
