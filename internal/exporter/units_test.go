package exporter

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/asowner"
	"github.com/dbmem/dbmem/internal/postgres"
)

// units are the shipped systemd units and the defaults file each reads.
var units = map[string]string{
	"dbmem-exporter.service":     "/etc/default/dbmem-exporter",
	"dbmem-watch-record.service": "/etc/default/dbmem-watch-record",
}

// helperUnits serve dbmem's PostgreSQL helper as postgres to the services
// (internal/asowner's sockets).
var helperUnits = []string{"dbmem-pg-helper.socket", "dbmem-pg-helper@.service"}

// debianExporterExposure is what `systemd-analyze security --offline=yes`
// (systemd 252, Debian 12) says of Debian's own prometheus-node-exporter
// (1.5.0-1+b6) and prometheus-postgres-exporter (0.11.1-3+b5) units,
// measured on this project's machine: both 9.2 UNSAFE. Ours must not be
// worse, and are held to maxExposure so a lost hardening line shows.
const (
	debianExporterExposure = 9.2
	maxExposure            = 3.0
)

func systemdAnalyze(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Fatal("systemd-analyze not found: install the Debian package systemd (scripts/test does)")
	}
	return p
}

// unitRoot is a root directory holding the units, an executable at
// /usr/bin/dbmem and the host's targets, for `systemd-analyze --root`.
func unitRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	sys := filepath.Join(root, "lib/systemd/system")
	if err := os.MkdirAll(sys, 0o755); err != nil {
		t.Fatal(err)
	}
	targets, _ := filepath.Glob("/lib/systemd/system/*.target")
	if len(targets) == 0 {
		t.Fatal("no /lib/systemd/system/*.target on this host: install systemd")
	}
	for _, f := range targets {
		copyFile(t, f, filepath.Join(sys, filepath.Base(f)), 0o644)
	}
	for _, u := range append(helperUnits, "dbmem-exporter.service", "dbmem-watch-record.service") {
		copyFile(t, filepath.Join(deployDir, "systemd", u), filepath.Join(sys, u), 0o644)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "usr/bin"), 0o755)
	copyFile(t, self, filepath.Join(root, "usr/bin/dbmem"), 0o755)
	return root
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// systemd-analyze verify accepts each unit without a word: a misspelt
// directive, an unknown system call group or a missing binary is printed
// (and for most makes it fail).
func TestUnitsVerify(t *testing.T) {
	sa, root := systemdAnalyze(t), unitRoot(t)
	for _, u := range append(helperUnits, "dbmem-exporter.service", "dbmem-watch-record.service") {
		out, err := exec.Command(sa, "verify", "--man=no", "--root="+root, u).CombinedOutput()
		if err != nil || len(strings.TrimSpace(string(out))) > 0 {
			t.Errorf("systemd-analyze verify %s: %v\n%s", u, err, out)
		}
	}
}

var exposureRE = regexp.MustCompile(`Overall exposure level for \S+: ([0-9.]+)`)

func TestUnitsHardened(t *testing.T) {
	sa, root := systemdAnalyze(t), unitRoot(t)
	for _, u := range []string{"dbmem-exporter.service", "dbmem-watch-record.service", "dbmem-pg-helper@postgres.service"} {
		out, err := exec.Command(sa, "security", "--offline=yes", "--no-pager", "--root="+root, u).CombinedOutput()
		m := exposureRE.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("systemd-analyze security %s: %v\n%s", u, err, out)
		}
		score, _ := strconv.ParseFloat(string(m[1]), 64)
		t.Logf("%s: exposure %.1f (Debian's exporter units: %.1f)", u, score, debianExporterExposure)
		if score > maxExposure || score > debianExporterExposure {
			t.Errorf("%s: exposure %.1f, want at most %.1f (Debian's exporters: %.1f)\n%s", u, score, maxExposure, debianExporterExposure, out)
		}
	}
}

// The units run the packaged binary with flags from their defaults file,
// as root with only the two capabilities measured for reading other users'
// processes (docs/deploy.md).
func TestUnitsShape(t *testing.T) {
	for u, def := range units {
		b, err := os.ReadFile(filepath.Join(deployDir, "systemd", u))
		if err != nil {
			t.Fatal(err)
		}
		kv := directives(string(b))
		if !strings.HasPrefix(kv["ExecStart"], "/usr/bin/dbmem ") || !strings.HasSuffix(kv["ExecStart"], " $ARGS") {
			t.Errorf("%s: ExecStart=%s, want /usr/bin/dbmem ... $ARGS", u, kv["ExecStart"])
		}
		if kv["EnvironmentFile"] != "-"+def {
			t.Errorf("%s: EnvironmentFile=%s, want -%s", u, kv["EnvironmentFile"], def)
		}
		if kv["CapabilityBoundingSet"] != "CAP_SYS_PTRACE CAP_DAC_READ_SEARCH" {
			t.Errorf("%s: CapabilityBoundingSet=%s", u, kv["CapabilityBoundingSet"])
		}
		args, err := os.ReadFile(filepath.Join(deployDir, "default", filepath.Base(def)))
		if err != nil || !regexp.MustCompile(`(?m)^ARGS="[^"]*"$`).Match(args) {
			t.Errorf("%s: want one ARGS=\"...\" line: %v\n%s", def, err, args)
		}
	}
}

// directives reads a unit's Key=Value lines (continuations joined; the
// last of a repeated key wins).
func directives(unit string) map[string]string {
	out := map[string]string{}
	unit = strings.ReplaceAll(unit, "\\\n", " ")
	for _, l := range strings.Split(unit, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(l, "#") {
			out[k] = strings.Join(strings.Fields(v), " ")
		}
	}
	return out
}

// The helper socket is root's alone, where asowner looks for it, and
// wanted by both services; the helper runs as postgres with no capability,
// one per connection, talking over the socket.
func TestHelperUnitsShape(t *testing.T) {
	read := func(u string) map[string]string {
		b, err := os.ReadFile(filepath.Join(deployDir, "systemd", u))
		if err != nil {
			t.Fatal(err)
		}
		return directives(string(b))
	}
	sock, svc := read("dbmem-pg-helper.socket"), read("dbmem-pg-helper@.service")
	for k, want := range map[string]string{"ListenStream": asowner.DefaultSocketDir + "/postgres.sock", "SocketUser": "root",
		"SocketGroup": "root", "SocketMode": "0600", "DirectoryMode": "0700", "Accept": "yes"} {
		if sock[k] != want {
			t.Errorf("dbmem-pg-helper.socket: %s=%s, want %s", k, sock[k], want)
		}
	}
	for k, want := range map[string]string{"User": "postgres", "CapabilityBoundingSet": "", "NoNewPrivileges": "yes",
		"StandardInput": "socket", "StandardOutput": "socket", "ExecStart": "/usr/bin/dbmem " + postgres.HelperCommand + " --" + postgres.HelperReadOnlyFlag} {
		if svc[k] != want {
			t.Errorf("dbmem-pg-helper@.service: %s=%q, want %q", k, svc[k], want)
		}
	}
	for u := range units {
		if kv := read(u); !strings.Contains(kv["Wants"], "dbmem-pg-helper.socket") || !strings.Contains(kv["After"], "dbmem-pg-helper.socket") {
			t.Errorf("%s does not want and follow dbmem-pg-helper.socket: Wants=%s After=%s", u, kv["Wants"], kv["After"])
		}
	}
}
