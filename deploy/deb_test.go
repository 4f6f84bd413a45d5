package deploy

import (
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
)

// The .deb installs on this machine (dpkg -i), its binary, man pages,
// completions and units work where the package put them, the exporter runs
// as the installed unit starts it, and dpkg --purge leaves nothing behind.
// The test refuses to run over a dbmem already installed here: it would
// replace and then purge it.
func TestDebInstalls(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Fatal("installing a .deb needs root: run the suite as root (scripts/test)")
	}
	guardNoDbmem(t)
	deb := one(t, "dbmem_*_"+runtime.GOARCH+".deb")
	t.Cleanup(func() { purge(t) })
	run(t, "dpkg", "-i", deb)

	if out := run(t, "dpkg-query", "-W", "-f", "${Status} ${Version}", "dbmem"); out != "install ok installed "+testVersion+"-1" {
		t.Errorf("dpkg-query: %q", out)
	}
	if out := run(t, "/usr/bin/dbmem", "--version"); !strings.Contains(out, testVersion) {
		t.Errorf("dbmem --version: %q, want %s", out, testVersion)
	}
	listed := run(t, "dpkg", "-L", "dbmem")
	for _, f := range append(packaged, "/usr/share/zsh/vendor-completions/_dbmem", "/usr/share/doc/dbmem/copyright") {
		if !strings.Contains(listed, f+"\n") {
			t.Errorf("dpkg -L dbmem lacks %s", f)
		}
	}
	if out := run(t, "man", "-w", "dbmem-exporter"); !strings.Contains(out, "/usr/share/man/man1/dbmem-exporter.1.gz") {
		t.Errorf("man -w dbmem-exporter: %q", out)
	}
	run(t, "bash", "-c", "source /usr/share/bash-completion/completions/dbmem && declare -F __start_dbmem")
	// The installed units, with the man pages their Documentation= names.
	for _, u := range []string{"dbmem-exporter.service", "dbmem-watch-record.service", "dbmem-pg-helper.socket", "dbmem-pg-helper@.service"} {
		out, err := exec.Command("systemd-analyze", "verify", "/usr/lib/systemd/system/"+u).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "" {
			t.Errorf("systemd-analyze verify %s: %v\n%s", u, err, out)
		}
	}
	t.Run("exporter", testInstalledExporter)
	t.Run("watch-record", testInstalledWatchRecord)
	t.Run("capabilities", testCapabilities)
}

// guardNoDbmem stops the test where it would destroy something: a dbmem
// package, files at the package's paths, or a history in /var/lib/dbmem
// (which purge removes).
func guardNoDbmem(t *testing.T) {
	t.Helper()
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Status}", "dbmem").Output(); err == nil && strings.Contains(string(out), "installed") {
		t.Fatalf("a dbmem package is installed on this host (%s): this test would replace and purge it; remove it (dpkg --purge dbmem) or run the test elsewhere", out)
	}
	for _, f := range []string{"/usr/bin/dbmem", "/etc/default/dbmem-exporter", "/usr/lib/systemd/system/dbmem-exporter.service", "/var/lib/dbmem"} {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s exists and belongs to no dbmem package: this test would overwrite or purge it; move it away first", f)
		}
	}
}

// purge removes the package and checks the machine is as it was.
func purge(t *testing.T) {
	out, err := exec.Command("dpkg", "--purge", "dbmem").CombinedOutput()
	if err != nil {
		t.Errorf("dpkg --purge dbmem: %v\n%s", err, out)
	}
	for _, f := range []string{"/usr/bin/dbmem", "/etc/default/dbmem-exporter", "/etc/default/dbmem-watch-record", "/usr/lib/systemd/system/dbmem-exporter.service", "/usr/share/dbmem", "/var/lib/dbmem"} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is still there after dpkg --purge", f)
		}
	}
}
