package asowner_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/asowner"
)

// askArg makes the test binary ask a helper as nobody and print the
// answer's uid or the error (askAsNobody): run under setpriv, it is a
// service with the capabilities setpriv leaves it.
const askArg = "asowner-test-ask"

var nobody = asowner.Account{UID: 65534, GID: 65534, Name: "nobody"}

// askAsNobody runs the helper as nobody, through the sockets in
// socketDir when it is not "-", and prints "uid N" or "error: ...".
func askAsNobody(socketDir string) int {
	r := &asowner.Runner{Args: []string{helperArg}}
	if socketDir != "-" {
		r.SocketDir = socketDir
	}
	var got info
	if err := r.Run(context.Background(), nobody, request{"info"}, &got); err != nil {
		fmt.Println("error:", err)
		return 0
	}
	fmt.Println("uid", got.UID)
	return 0
}

// asService runs askAsNobody as a service with only CAP_SYS_PTRACE and
// CAP_DAC_READ_SEARCH (dbmem-exporter.service's set) and no new
// privileges, and returns what it printed.
func asService(t *testing.T, bin, socketDir string) string {
	t.Helper()
	out, err := exec.Command("setpriv", "--bounding-set=-all,+sys_ptrace,+dac_read_search", "--inh-caps=-all", "--no-new-privs",
		"--", bin, askArg, socketDir).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	return strings.TrimSpace(string(out))
}

// publicCopy copies this test binary where nobody may execute it.
func publicCopy(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dbmem-asowner-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	b, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "asowner.test")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("changing uid needs root")
	}
}

// TestStartErrorNamesMissingCapability: a service without CAP_SETUID and
// CAP_SETGID (the units' bounding set) cannot start the helper as another
// account. The error used to say "make it mode 0755" of a binary that was
// already 0755; it names the missing capabilities and the socket that
// would serve the account.
func TestStartErrorNamesMissingCapability(t *testing.T) {
	needRoot(t)
	out := asService(t, publicCopy(t), "/run/dbmem-no-such-dir")
	if !strings.Contains(out, "dbmem lacks CAP_SETUID and CAP_SETGID, which running its helper as OS user nobody takes") ||
		!strings.Contains(out, "no helper socket /run/dbmem-no-such-dir/nobody.sock serves that account") || strings.Contains(out, "0755") {
		t.Errorf("helper started without CAP_SETUID: %s", out)
	}
}

// TestStartErrorNamesTheMode: with the capabilities, a binary the account
// may not execute is named with its mode.
func TestStartErrorNamesTheMode(t *testing.T) {
	needRoot(t)
	bin := publicCopy(t)
	os.Chmod(bin, 0o700)
	out, err := exec.Command(bin, askArg, "-").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OS user nobody may not execute dbmem's binary "+bin+" (mode -rwx------; make it mode 0755)") {
		t.Errorf("a 0700 binary: %v %s", err, out)
	}
}

// TestRunThroughSocket: where a helper socket serves the account (here
// systemd-socket-activate stands in for systemd, in inetd mode, starting
// the helper as nobody per connection), a service without CAP_SETUID gets
// its answer through it, from a helper running as nobody.
func TestRunThroughSocket(t *testing.T) {
	needRoot(t)
	bin := publicCopy(t)
	dir := socketDir(t, bin)
	if out := asService(t, bin, dir); out != "uid 65534" {
		t.Errorf("through the socket: %s", out)
	}
	// A socket that others may connect to is not root's alone: not used.
	os.Chmod(filepath.Join(dir, "nobody.sock"), 0o666)
	if out := asService(t, bin, dir); !strings.Contains(out, "dbmem lacks CAP_SETUID") || !strings.Contains(out, "is not root's") {
		t.Errorf("through a socket everyone may use: %s", out)
	}
}

// socketDir serves bin's helper as nobody on DIR/nobody.sock (root's,
// 0600, in a 0700 directory) until the test ends, and returns DIR.
func socketDir(t *testing.T, bin string) string {
	t.Helper()
	if _, err := exec.LookPath("systemd-socket-activate"); err != nil {
		t.Fatal("systemd-socket-activate not found: install the Debian package systemd (scripts/test does)")
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "nobody.sock")
	cmd := exec.Command("systemd-socket-activate", "--inetd", "-a", "-l", sock, "--",
		"setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--", bin, helperArg)
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("unix", sock); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("systemd-socket-activate did not listen within two minutes")
		}
	}
	if err := os.Chmod(sock, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
