package deploy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// unit is what an installed unit says about how to start its service.
type unit struct {
	exec    []string // ExecStart, $ARGS expanded as systemd does
	caps    []string // CapabilityBoundingSet, lower case without CAP_
	ambient []string // AmbientCapabilities, the same way
	user    string   // User= ("": root)
	group   string   // Group=
	noNew   bool     // NoNewPrivileges
	filters []string // SystemCallFilter lines, in order
	kv      map[string]string
}

// readUnit reads an installed unit and the EnvironmentFile it names.
func readUnit(t *testing.T, path string) unit {
	t.Helper()
	return readUnitIn(t, "/", path)
}

// readUnitIn reads a unit of a package unpacked at root (path is where the
// package installs it): its EnvironmentFile and the binary of its
// ExecStart are taken from under root too.
func readUnitIn(t *testing.T, root, path string) unit {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	u := unit{kv: map[string]string{}}
	env := map[string]string{}
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\\\n", " "), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), "=")
		if !ok || strings.HasPrefix(k, "#") {
			continue
		}
		u.kv[k] = v
		switch k {
		case "EnvironmentFile":
			env = envFile(t, filepath.Join(root, strings.TrimPrefix(v, "-")))
		case "CapabilityBoundingSet":
			u.caps = capNames(v)
		case "AmbientCapabilities":
			u.ambient = capNames(v)
		case "User":
			u.user = v
		case "Group":
			u.group = v
		case "NoNewPrivileges":
			u.noNew = v == "yes"
		case "SystemCallFilter":
			u.filters = append(u.filters, v)
		}
	}
	for _, w := range strings.Fields(u.kv["ExecStart"]) {
		if name, ok := strings.CutPrefix(w, "$"); ok { // unbraced: split at white space
			u.exec = append(u.exec, strings.Fields(env[name])...)
			continue
		}
		u.exec = append(u.exec, w)
	}
	if len(u.exec) > 0 && root != "/" {
		u.exec[0] = filepath.Join(root, u.exec[0])
	}
	return u
}

func capNames(v string) []string {
	var out []string
	for _, c := range strings.Fields(v) {
		out = append(out, strings.ToLower(strings.TrimPrefix(c, "CAP_")))
	}
	return out
}

// setpriv is the command that starts a process as the unit would: its
// User and Group (with the user's groups, as systemd sets them), only its
// bounding set (what CapabilityBoundingSet= does; for root it is then
// all it has), its ambient capabilities, no new privileges.
func (u unit) setpriv(t *testing.T) []string {
	t.Helper()
	set := func(caps []string) string {
		s := "-all"
		for _, c := range caps {
			s += ",+" + c
		}
		return s
	}
	args := []string{"setpriv", "--bounding-set=" + set(u.caps), "--inh-caps=" + set(u.ambient)}
	if len(u.ambient) > 0 {
		if u.user != "" {
			t.Fatalf("a unit with both User= and AmbientCapabilities= is not emulated here: setpriv drops the capabilities with the uid")
		}
		args = append(args, "--ambient-caps="+set(u.ambient))
	}
	if u.user != "" {
		group := u.group
		if group == "" {
			group = u.user
		}
		args = append(args, "--reuid="+u.user, "--regid="+group, "--init-groups")
	}
	if u.noNew {
		args = append(args, "--no-new-privs")
	}
	return append(args, "--")
}

// envFile reads KEY=VALUE lines with optional double quotes, as systemd's
// EnvironmentFile= does for these simple files.
func envFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("EnvironmentFile: %v", err)
	}
	defer f.Close()
	env := map[string]string{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		l := strings.TrimSpace(s.Text())
		if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") {
			env[k] = strings.Trim(v, `"`)
		}
	}
	return env
}

// sandboxed starts argv the way the unit's privileges allow: root with
// only the unit's bounding set (what CapabilityBoundingSet= does for a
// root service), no new privileges, and every system call traced to
// traceFile.
func (u unit) sandboxed(traceFile string, argv ...string) *exec.Cmd {
	caps := "-all"
	for _, c := range u.caps {
		caps += ",+" + c
	}
	args := []string{"--bounding-set=" + caps, "--inh-caps=-all"}
	if u.noNew {
		args = append(args, "--no-new-privs")
	}
	args = append(args, "--", "strace", "-f", "-qq", "-o", traceFile, "--")
	return exec.Command("setpriv", append(args, argv...)...)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// testInstalledExporter runs the installed unit's ExecStart with the
// default file's ARGS, on a free loopback port instead of 9815, scrapes it
// until the first smaps_rollup pass is in, then stops it with SIGTERM.
func testInstalledExporter(t *testing.T) {
	u := readUnit(t, "/usr/lib/systemd/system/dbmem-exporter.service")
	port := freePort(t)
	argv := slices.Clone(u.exec)
	moved := false
	for i, a := range argv {
		if addr, ok := strings.CutPrefix(a, "--web.listen-address="); ok {
			if !strings.HasPrefix(addr, "127.0.0.1:") {
				t.Errorf("the default file listens on %s: want localhost until a web config adds TLS and auth", addr)
			}
			argv[i], moved = fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), true
		}
	}
	if !moved || argv[0] != "/usr/bin/dbmem" || argv[1] != "exporter" {
		t.Fatalf("ExecStart with ARGS: %q", argv)
	}
	trace := filepath.Join(t.TempDir(), "strace")
	cmd := u.sandboxed(trace, argv...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	body := scrapeUntil(t, port, "dbmem_smaps_last_success_timestamp_seconds")
	checkScrape(t, body)
	stop(t, cmd, &stderr)
	checkSyscalls(t, u, trace)
}

// scrapeUntil scrapes /metrics until a line starts with want (the
// background smaps_rollup pass ends a few seconds after the start).
func scrapeUntil(t *testing.T, port int, want string) string {
	t.Helper()
	url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
	deadline := time.Now().Add(3 * time.Minute)
	var last string
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last = string(b)
			if resp.StatusCode == 200 && regexp.MustCompile(`(?m)^`+want).MatchString(last) {
				return last
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatalf("no %s at %s in 3 minutes; last scrape:\n%s", want, url, last)
	return ""
}

// checkScrape: the host's PostgreSQL (port 5432, always running on this
// project's machines) is there with its Pss from smaps_rollup, which the
// postgres user's processes only give to CAP_SYS_PTRACE, and no collector
// failed.
func checkScrape(t *testing.T, body string) {
	t.Helper()
	for _, re := range []string{`(?m)^dbmem_postgres_info\{.*port="5432"`, `(?m)^dbmem_postgres_pss_private_bytes\{.*port="5432".*role="postmaster"`} {
		if !regexp.MustCompile(re).MatchString(body) {
			t.Errorf("scrape has no line matching %s", re)
		}
	}
	if m := regexp.MustCompile(`(?m)^dbmem_scrape_collector_success\{.*\} 0$`).FindAllString(body, -1); len(m) > 0 {
		t.Errorf("failed collectors: %q", m)
	}
}

// stop sends SIGTERM to dbmem (strace's child) and wants a clean exit.
func stop(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder) {
	t.Helper()
	pid := cmd.Process.Pid
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	kids := strings.Fields(string(b))
	if err != nil || len(kids) != 1 {
		t.Fatalf("strace %d has children %q (%v), want dbmem alone", pid, kids, err)
	}
	child, _ := strconv.Atoi(kids[0])
	syscall.Kill(child, syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exporter after SIGTERM: %v\n%s", err, stderr)
		}
	case <-time.After(time.Minute):
		t.Errorf("exporter still running a minute after SIGTERM")
	}
}
