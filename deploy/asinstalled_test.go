package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
)

// unpacked is the .deb scripts/package builds, unpacked with dpkg-deb -x
// into a directory every account may search (the helper runs as
// postgres); it is removed when the test ends.
func unpacked(t *testing.T) string {
	t.Helper()
	deb := one(t, "dbmem_*_"+runtime.GOARCH+".deb")
	dir, err := os.MkdirTemp("", "dbmem-deb-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, "dpkg-deb", "-x", deb, dir)
	return dir
}

// peerCluster starts a cluster run by postgres that lets local accounts in
// only as themselves (initdb --auth-local=peer), as a stock Debian cluster
// does: root gets in only as postgres.
func peerCluster(t *testing.T) *pgcluster.Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := pgcluster.Create(ctx, pgcluster.Options{OSUser: "postgres", AuthLocal: "peer", InitdbWithoutHugePages: true,
		Settings: map[string]string{"huge_pages": "off", "shared_buffers": "48MB", "max_connections": "87"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Remove(); err != nil {
			t.Errorf("remove %s: %v", c.Dir, err)
		}
	})
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestPackagedUnitsReadPeerCluster runs the package's own files as the
// package runs them: dbmem-pg-helper.socket and its helper (as postgres,
// no capability), the exporter and watch-record services (root with their
// bounding set, no new privileges, ARGS from /etc/default), each with the
// view of /proc its ProtectProc= and ProcSubset= give, against a stock
// peer-auth cluster. Both read its settings from the server itself. The
// package used to pass --pg-user=postgres, which let root in nowhere, and
// without it the helper failed under the bounding set with "make it mode
// 0755".
func TestPackagedUnitsReadPeerCluster(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("starting services as their units say needs root: run the suite as root (scripts/test)")
	}
	root := unpacked(t)
	c := peerCluster(t)
	t.Run("exporter", func(t *testing.T) {
		u := readUnitIn(t, root, "/usr/lib/systemd/system/dbmem-exporter.service")
		port := freePort(t)
		var stderr strings.Builder
		cmd := startWithHelper(t, root, u, listenOn(t, u.exec, port), io.Discard, &stderr)
		want := fmt.Sprintf(`dbmem_postgres_info\{connected="true",data_dir="%s".*port="%d"`, regexp.QuoteMeta(c.DataDir), c.Port)
		body := scrapeUntil(t, port, want)
		for _, l := range strings.Split(body, "\n") {
			if strings.Contains(l, fmt.Sprintf(`port="%d"`, c.Port)) && (strings.HasPrefix(l, "dbmem_postgres_info") || strings.HasPrefix(l, "dbmem_postgres_max_connections")) {
				t.Log(l)
			}
		}
		if !strings.Contains(body, fmt.Sprintf(`dbmem_postgres_max_connections{data_dir=%q,port="%d",server_pid=""} 87`, c.DataDir, c.Port)) {
			t.Errorf("the scrape lacks the cluster's max_connections of 87")
		}
		syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
		waitExit(t, cmd, &stderr, time.Minute)
	})
	t.Run("watch-record", func(t *testing.T) {
		u := readUnitIn(t, root, "/usr/lib/systemd/system/dbmem-watch-record.service")
		// The history goes to a temporary file, not the unit's
		// /var/lib/dbmem: a later --record wins.
		argv := append(slices.Clone(u.exec), "--record="+filepath.Join(t.TempDir(), "watch.db"), "--count=2", "--interval=1s", "--json")
		var stdout, stderr strings.Builder
		cmd := startWithHelper(t, root, u, argv, &stdout, &stderr)
		waitExit(t, cmd, &stderr, 5*time.Minute)
		checkWatchConnected(t, stdout.String(), c)
	})
}

// listenOn is the exporter's argv with its listen address moved to a free
// loopback port.
func listenOn(t *testing.T, exec []string, port int) []string {
	t.Helper()
	argv := slices.Clone(exec)
	for i, a := range argv {
		if strings.HasPrefix(a, "--web.listen-address=") {
			argv[i] = fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port)
			return argv
		}
	}
	t.Fatalf("ExecStart with ARGS has no --web.listen-address: %q", argv)
	return nil
}

// startWithHelper starts argv as unit u runs it, with the package's helper
// socket served as its units say, in a private mount namespace: a tmpfs on
// the socket's directory (the host's /run is never touched), /proc
// mounted as u's ProtectProc= and ProcSubset= say, and the helper, started
// per connection by systemd-socket-activate (inetd mode, as Accept=yes and
// StandardInput=socket), in a namespace of its own with its /proc.
func startWithHelper(t *testing.T, root string, u unit, argv []string, stdout, stderr io.Writer) *exec.Cmd {
	t.Helper()
	sock := readUnitIn(t, root, "/usr/lib/systemd/system/dbmem-pg-helper.socket").kv
	helper := readUnitIn(t, root, "/usr/lib/systemd/system/dbmem-pg-helper@.service")
	path := sock["ListenStream"]
	dir := filepath.Dir(path)
	if _, err := os.Stat(dir); os.IsNotExist(err) {
		if err := os.Mkdir(dir, 0o700); err != nil { // the tmpfs's mount point
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(dir) })
	}
	tmp := t.TempDir()
	helperScript := filepath.Join(tmp, "helper.sh")
	writeScript(t, helperScript, "set -e", mountProc(helper), "exec "+shellWords(append(helper.setpriv(t), helper.exec...)))
	pidFile := filepath.Join(tmp, "activator.pid")
	script := filepath.Join(tmp, "run.sh")
	writeScript(t, script, "set -e",
		"mount -t tmpfs -o mode="+sock["DirectoryMode"]+" tmpfs "+shellWords([]string{dir}),
		mountProc(u),
		"setpriv --pdeathsig=KILL systemd-socket-activate --inetd --accept --listen="+shellWords([]string{path})+" -- unshare --mount --propagation private "+helperScript+" </dev/null >/dev/null 2>>"+filepath.Join(tmp, "helper.log")+" &",
		"echo $! > "+pidFile,
		"i=0; while [ ! -S "+shellWords([]string{path})+" ]; do i=$((i+1)); [ $i -lt 1200 ] || exit 1; sleep 0.1; done",
		"chmod "+sock["SocketMode"]+" "+shellWords([]string{path}),
		"exec "+shellWords(append(u.setpriv(t), argv...)))
	cmd := exec.Command("unshare", "--mount", "--propagation", "private", "sh", script)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = 10 * time.Second
	// Both end with this test binary, even when a timeout kills it before
	// the cleanup runs: the shell (then the service) with it, the socket
	// activator with the service.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		if b, _ := os.ReadFile(filepath.Join(tmp, "helper.log")); len(b) > 0 && t.Failed() {
			t.Logf("the helpers' standard error:\n%s", b)
		}
		if b, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return cmd
}

// mountProc is the mount of /proc a unit's ProtectProc= and ProcSubset=
// make ("" when they keep the host's).
func mountProc(u unit) string {
	var opts []string
	if v := u.kv["ProtectProc"]; v != "" && v != "default" {
		opts = append(opts, "hidepid="+v)
	}
	if v := u.kv["ProcSubset"]; v == "pid" {
		opts = append(opts, "subset=pid")
	}
	if len(opts) == 0 {
		return ":"
	}
	return "mount -t proc -o " + strings.Join(opts, ",") + " proc /proc"
}

func writeScript(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+strings.Join(lines, "\n")+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
}

// shellWords quotes each word for sh.
func shellWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// waitExit waits for cmd, at most limit, and wants exit 0.
func waitExit(t *testing.T, cmd *exec.Cmd, stderr *strings.Builder, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("%q: %v\n%s", cmd.Args, err, stderr)
		}
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Errorf("%q still ran after %s\n%s", cmd.Args, limit, stderr)
	}
}

// checkWatchConnected wants every tick of watch --json to show the cluster
// with the server's own version string (read over the connection; the
// data directory only says the major version) and its max_connections.
func checkWatchConnected(t *testing.T, out string, c *pgcluster.Cluster) {
	t.Helper()
	ticks := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var f struct {
			Instances []struct {
				Port           int    `json:"port"`
				Version        string `json:"version"`
				MaxConnections int    `json:"max_connections"`
			} `json:"instances"`
		}
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("watch --json: %v\n%s", err, l)
		}
		ticks++
		found := false
		for _, in := range f.Instances {
			if in.Port == c.Port {
				found = true
				if !strings.Contains(in.Version, ".") || in.MaxConnections != 87 {
					t.Errorf("tick %d: the cluster has version %q and max_connections %d: not read from the server", ticks, in.Version, in.MaxConnections)
				}
			}
		}
		if !found {
			t.Errorf("tick %d does not show the cluster on port %d", ticks, c.Port)
		}
	}
	if ticks != 2 {
		t.Errorf("%d ticks, want 2:\n%s", ticks, out)
	}
}
