package lab

import (
	"os"
	"strings"
	"testing"
	"time"
)

// recordedBoot is only used for monotonic stamps; the fixtures carry ISO
// stamps.
var recordedBoot = time.Date(2026, 11, 25, 7, 45, 0, 0, time.UTC)

// otherKill is another session's OOM kill in another cgroup, as the
// shared host's kernel log held it during a lab run.
func otherKill(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../oomlog/testdata/memcg-v1-hog-kernel-6.18.44-fc-v769-dmesg-iso.txt")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPostmortemExplainsRecordedKill runs dbmem's post-mortem on the
// kernel log and server log of a real lab run's kill: it must name the
// runaway backend, the lab's cgroup, and the crash restart paired by PID;
// another program's kill in the same kernel log is counted, not judged.
func TestPostmortemExplainsRecordedKill(t *testing.T) {
	kernel, server := readFixture(t, "unprotected-dmesg-iso.txt"), readFixture(t, "unprotected-server.log")
	rep, text := postmortemOf(kernel, server, "server.log", "lab cluster", "UTC", recordedBoot)
	v := judgeKill(rep, recordedKilled, recordedCgroup)
	if !v.Explains || !strings.Contains(v.Summary, "client backend") || !strings.Contains(v.Summary, "paired by pid") {
		t.Errorf("verdict %+v\n%s", v, text)
	}
	rep, _ = postmortemOf(otherKill(t)+kernel, server, "server.log", "lab cluster", "UTC", recordedBoot)
	if v := judgeKill(rep, recordedKilled, recordedCgroup); !v.Explains || !strings.Contains(v.Summary, "1 other OOM kill") {
		t.Errorf("with another cgroup's kill in the log: %+v", v)
	}
	for name, c := range map[string]struct {
		kernel, server, cgroup string
		pid                    int
		missing                string
	}{
		"another backend":   {kernel, server, recordedCgroup, recordedKilled + 1, "no OOM kill of the runaway backend"},
		"another cgroup":    {kernel, server, "/other", recordedKilled, "not the lab's memory cgroup"},
		"no server log":     {kernel, "", recordedCgroup, recordedKilled, "no crash restart"},
		"restart cut short": {kernel, server[:strings.Index(server, "redo done")], recordedCgroup, recordedKilled, "ready to accept connections"},
		"no kill":           {"", server, recordedCgroup, recordedKilled, "no OOM kill of the runaway backend"},
	} {
		rep, _ := postmortemOf(c.kernel, c.server, "server.log", "lab cluster", "UTC", recordedBoot)
		v := judgeKill(rep, c.pid, c.cgroup)
		if v.Explains || !strings.Contains(strings.Join(v.Missing, "; "), c.missing) {
			t.Errorf("%s: verdict %+v, want it missing %q", name, v, c.missing)
		}
	}
}

// TestPostmortemExplainsRecordedOutOfMemory: the protected run's server
// log holds the runaway's "out of memory" and no kill.
func TestPostmortemExplainsRecordedOutOfMemory(t *testing.T) {
	server := readFixture(t, "protected-server.log")
	rep, text := postmortemOf("", server, "server.log", "lab cluster", "UTC", recordedBoot)
	v := judgeOutOfMemory(rep, recordedProtected, recordedCgroup)
	if !v.Explains || !strings.Contains(v.Summary, "ExecutorState") {
		t.Errorf("verdict %+v\n%s", v, text)
	}
	rep, _ = postmortemOf(otherKill(t), server, "server.log", "lab cluster", "UTC", recordedBoot)
	if v := judgeOutOfMemory(rep, recordedProtected, recordedCgroup); !v.Explains {
		t.Errorf("another cgroup's kill made the protected run unexplained: %+v", v)
	}
	rep, _ = postmortemOf(readFixture(t, "unprotected-dmesg-iso.txt"), server, "server.log", "lab cluster", "UTC", recordedBoot)
	if v := judgeOutOfMemory(rep, recordedProtected, recordedCgroup); v.Explains {
		t.Errorf("a kill in the lab's cgroup went unnoticed: %+v", v)
	}
	if v := judgeOutOfMemory(rep, 1, recordedCgroup); v.Explains {
		t.Errorf("another backend's error counted: %+v", v)
	}
}
