package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// pgInstanceJSON is what the tests read of a PostgreSQL instance in
// report --json.
type pgInstanceJSON struct {
	PID        int    `json:"postmaster_pid"`
	Port       int    `json:"port"`
	Connected  bool   `json:"connected"`
	Connection string `json:"connection"`
	Settings   map[string]struct {
		Value string `json:"value"`
	} `json:"settings"`
}

func reportInstance(t *testing.T, out string, pid int) pgInstanceJSON {
	t.Helper()
	var doc struct {
		Snapshot struct {
			Postgres []pgInstanceJSON `json:"postgres"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("report --json: %v\n%s", err, out)
	}
	for _, in := range doc.Snapshot.Postgres {
		if in.PID == pid {
			return in
		}
	}
	t.Fatalf("postmaster %d not in the report", pid)
	return pgInstanceJSON{}
}

// TestNonRootNeverShowsAnotherServersSettings: dbmem run as nobody cannot
// read a test cluster's postmaster.pid or postgresql.conf (shared_buffers
// 48MB, a free port). It must not fall back to port 5432 and show the
// host's server's 128MB, nor built-in defaults: the settings are unknown,
// with the reason. Told the port and socket directory, it connects, proves
// the listener with SO_PEERCRED, and shows 48MB.
func TestNonRootNeverShowsAnotherServersSettings(t *testing.T) {
	binaries(t)
	c := pgtest.Start(t, map[string]string{"shared_buffers": "48MB"})
	nobody := &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	env := []string{"HOME=/nonexistent", "PATH=/usr/bin:/bin"}
	_, out, errs := runAs(t, nobody, env, "report", "--fast", "--json")
	in := reportInstance(t, out, c.PID)
	if sb, ok := in.Settings["shared_buffers"]; ok || in.Connected || in.Port != 0 ||
		!strings.Contains(in.Connection, fmt.Sprintf("the port of postmaster %d is unknown", c.PID)) {
		t.Errorf("as nobody: port %d, connected %v (%s), shared_buffers %q; want unknown\n%s", in.Port, in.Connected, in.Connection, sb.Value, errs)
	}
	_, text, _ := runAs(t, nobody, env, "report", "--fast")
	block := regexp.MustCompile(`(?s)port unknown  postmaster ` + strconv.Itoa(c.PID) + `\n.*?\n\n`).FindString(text)
	if block == "" || strings.Contains(block, "shared_buffers=") || !strings.Contains(block, "Settings     unknown") {
		t.Errorf("as nobody, the text report's block for postmaster %d:\n%s\n(whole report:\n%s)", c.PID, block, text)
	}
	_, out, _ = runAs(t, nobody, env, "report", "--fast", "--json", "--pg-port", strconv.Itoa(c.Port), "--pg-host", c.SocketDir)
	in = reportInstance(t, out, c.PID)
	if !in.Connected || in.Settings["shared_buffers"].Value != "48MB" || in.Port != c.Port ||
		!strings.Contains(in.Connection, fmt.Sprintf("server proven: postmaster %d run by postgres", c.PID)) {
		t.Errorf("as nobody with --pg-port and --pg-host: %+v", in)
	}
}

// TestReportReadsPeerClusterAsRoot: `dbmem report` as root on a cluster
// initialised with --auth-local=peer (the stock Debian setup) reads its
// settings through dbmem's own helper running as postgres.
func TestReportReadsPeerClusterAsRoot(t *testing.T) {
	binaries(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	c, err := pgcluster.Create(ctx, pgcluster.Options{AuthLocal: "peer", InitdbWithoutHugePages: true, Settings: map[string]string{"huge_pages": "off", "shared_buffers": "48MB"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Remove() })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	_, out, errs := runAs(t, nil, []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, "report", "--fast", "--json", "--pg-port", strconv.Itoa(c.Port))
	in := reportInstance(t, out, c.PID)
	if !in.Connected || in.Settings["shared_buffers"].Value != "48MB" ||
		!strings.Contains(in.Connection, "through dbmem's helper running as OS user postgres; server proven") {
		t.Errorf("peer cluster as root: %+v\n%s", in, errs)
	}
}
