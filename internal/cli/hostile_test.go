package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// hostile is a process name that sets a terminal's title and clears its
// screen when printed raw (11 bytes: it fits in comm's 15).
const hostile = "\x1b]0;PWN\a\x1b[2J"

// hostileShown is how dbmem shows it: inert.
const hostileShown = `\x1b]0;PWN\x07\x1b[2J`

// TestHelperHostileProcess is the hostile process when started by
// startHostile: it names itself, volunteers as the first OOM victim and
// sleeps.
func TestHelperHostileProcess(t *testing.T) {
	if os.Getenv("DBMEM_HOSTILE_HELPER") != "1" {
		t.Skip("helper process of TestHostileNamesAreInert")
	}
	// The process's comm is its main thread's: prctl(PR_SET_NAME) would name
	// whichever thread this goroutine runs on (often another one).
	if err := os.WriteFile("/proc/self/comm", []byte(hostile), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString("ready\n")
	time.Sleep(10 * time.Minute)
}

// startHostile starts the helper with the hostile name as comm and as
// argv[0] (its cmdline) and oom_score_adj 1000.
func startHostile(t *testing.T) int {
	t.Helper()
	cmd := &exec.Cmd{Path: os.Args[0], Args: []string{hostile, "-test.run=^TestHelperHostileProcess$"},
		Env: append(os.Environ(), "DBMEM_HOSTILE_HELPER=1")}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("hostile helper: %q, %v", line, err)
	}
	if comm, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/comm"); string(comm) != hostile+"\n" {
		t.Fatalf("helper comm is %q", comm)
	}
	return cmd.Process.Pid
}

// startAuthenticating starts a cluster that asks every user but postgres
// for a password, and a client that sends a startup packet with a hostile
// user and database name and never answers the password request: its
// backend stays in "authentication", claiming those names.
func startAuthenticating(t *testing.T) *pgcluster.Cluster {
	t.Helper()
	c := pgtest.Create(t, map[string]string{"authentication_timeout": "5min"})
	hba := "local all postgres trust\nlocal all all scram-sha-256\nhost all all 127.0.0.1/32 scram-sha-256\n"
	if err := os.WriteFile(filepath.Join(c.DataDir, "pg_hba.conf"), []byte(hba), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("unix", filepath.Join(c.SocketDir, ".s.PGSQL."+strconv.Itoa(c.Port)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.Write(startupPacket("user", "ev\x1b[2Jil", "database", "db\x07"))
	head := make([]byte, 9)
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	if _, err := conn.Read(head); err != nil || head[0] != 'R' {
		t.Fatalf("the server did not ask for a password: %q %v", head, err)
	}
	return c
}

func startupPacket(kv ...string) []byte {
	var body bytes.Buffer
	binary.Write(&body, binary.BigEndian, uint32(196608)) // protocol 3.0
	for _, s := range kv {
		body.WriteString(s + "\x00")
	}
	body.WriteByte(0)
	out := binary.BigEndian.AppendUint32(nil, uint32(body.Len()+4))
	return append(out, body.Bytes()...)
}

// TestHostileNamesAreInert: a process named with escape sequences and a
// client that claims escape sequences as its user and database names are
// shown inert by check, report, watch and history, and the claim is
// marked as one.
func TestHostileNamesAreInert(t *testing.T) {
	pid := startHostile(t)
	c := startAuthenticating(t)
	record := filepath.Join(t.TempDir(), "watch.db")
	port := strconv.Itoa(c.Port)
	outputs := map[string][]string{
		"check":  {"check"},
		"report": {"report", "--all", "--pg-port", port},
		"watch":  {"watch", "--count", "1", "--record", record},
	}
	shown := map[string]string{}
	for name, args := range outputs {
		_, out, stderr := run(t, args...)
		shown[name] = out + stderr
	}
	_, out, stderr := run(t, "history", record)
	shown["history"] = out + stderr
	for name, out := range shown {
		if strings.ContainsAny(out, "\x1b\a") {
			t.Errorf("%s writes raw ESC or BEL bytes:\n%s", name, out)
		}
	}
	for _, name := range []string{"check", "watch", "history"} {
		if want := "pid " + strconv.Itoa(pid) + " " + hostileShown; !strings.Contains(shown[name], want) {
			t.Errorf("%s does not show the OOM victim as %q:\n%s", name, want, shown[name])
		}
	}
	if want := `client authenticating, claims ev\x1b[2Jil@`; !strings.Contains(shown["report"], want) {
		t.Errorf("report does not mark the unauthenticated client as claiming %q:\n%s", want, shown["report"])
	}
	_, js, _ := run(t, "report", "--json", "--pg-port", port)
	if !strings.Contains(js, `"unauthenticated": true`) || strings.ContainsAny(js, "\x1b\a") {
		t.Errorf("report --json: the claim is not marked unauthenticated, or raw control bytes:\n%.2000s", js)
	}
}
