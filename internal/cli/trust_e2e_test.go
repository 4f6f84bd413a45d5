package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/throwaway"
)

var secrets = []string{"env-secret-pg", "pgpass-secret", "env-secret-my", "mycnf-secret"}

// TestRogueServersGetNoPassword: as nobody, fake servers named postgres
// (asking for the password in clear, and with md5) and mysqld (asking for
// caching_sha2_password's full authentication, which a client answers in
// clear over a unix socket) own their files and sockets consistently.
// With PGPASSWORD, MYSQL_PWD, a wildcard ~/.pgpass and a ~/.my.cnf
// password, report, check, capture and one exporter scrape send none of
// them, and the report says why it did not connect.
func TestRogueServersGetNoPassword(t *testing.T) {
	bin := binaries(t)
	home := t.TempDir()
	writeSecretFile(t, filepath.Join(home, ".pgpass"), "*:*:*:*:pgpass-secret\n")
	writeSecretFile(t, filepath.Join(home, ".my.cnf"), "[client]\npassword=mycnf-secret\n")
	rogues := []*rogue{startRogue(t, "postgres", "cleartext"), startRogue(t, "postgres", "md5"), startRogue(t, "mysqld", "")}
	base := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	env := append(base, "PGPASSWORD=env-secret-pg", "MYSQL_PWD=env-secret-my")
	_, out, errs := runAs(t, nil, env, "report", "--fast")
	for _, r := range rogues {
		head := "postmaster "
		if r.name == "mysqld" {
			head = "pid "
		}
		why := regexp.MustCompile(head + strconv.Itoa(r.cmd.Process.Pid) + `\n  Connection   not connected \(.*the server runs as nobody, not a trusted account`)
		if !why.MatchString(out) {
			t.Errorf("report does not say why it did not connect to %s %d:\n%s\n%s", r.name, r.cmd.Process.Pid, out, errs)
		}
	}
	runAs(t, nil, env, "check")
	runAs(t, nil, env, "capture", "--fast", "-o", filepath.Join(t.TempDir(), "b.tar.gz"))
	scrapeOnce(t, bin, env)
	runAs(t, nil, base, "report", "--fast") // the files alone
	for _, r := range rogues {
		checkRogue(t, r)
	}
}

// checkRogue: the rogue was asked, and got no password in any form.
func checkRogue(t *testing.T, r *rogue) {
	t.Helper()
	rec, events := r.records(), r.events()
	for _, s := range secrets {
		if strings.Contains(rec, s) {
			t.Errorf("%s in %s received %q", r.name, r.dir, s)
		}
	}
	if r.name == "postgres" {
		if n := strings.Count(events, "startup "); n < 5 {
			t.Errorf("%s: asked %d times, want at least once per command (5):\n%s", r.dir, n, events)
		}
		if strings.Contains(events, "message p ") {
			t.Errorf("%s: a password message was sent:\n%s", r.dir, events)
		}
		return
	}
	n := strings.Count(events, "auth response of ")
	if n < 4 || n != strings.Count(events, "auth response of 0 bytes") {
		t.Errorf("mysqld received an auth response (a scramble of a password): events:\n%s", events)
	}
}

// scrapeOnce starts the exporter, scrapes /metrics once and stops it.
func scrapeOnce(t *testing.T, bin string, env []string) {
	t.Helper()
	port, err := throwaway.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(filepath.Join(bin, "dbmem"), "exporter", "--web.listen-address", addr, "--smaps-interval", "0")
	cmd.Env, cmd.Dir = env, "/"
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ours.add(cmd.Process.Pid)
	defer func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() }()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == 200 && strings.Contains(string(body), "dbmem_") {
			return
		}
	}
	t.Fatal("the exporter never answered a scrape")
}

func writeSecretFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}
