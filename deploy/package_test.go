package deploy

import (
	"debug/elf"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// testVersion is stamped into the packages the tests build.
const testVersion = "0.0.0~test1"

var (
	buildOnce sync.Once
	distDir   string
	buildErr  error
)

// dist runs scripts/package once for this machine's architecture and
// returns its output directory (removed by TestMain).
func dist(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		distDir, buildErr = os.MkdirTemp("", "dbmem-dist-")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("../scripts/package")
		cmd.Env = append(os.Environ(), "OUT="+distDir, "ARCHES="+runtime.GOARCH, "VERSION="+testVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("scripts/package: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return distDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if distDir != "" {
		os.RemoveAll(distDir)
	}
	os.Exit(code)
}

func one(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dist(t), pattern))
	if len(m) != 1 {
		t.Fatalf("%s: %d files, want 1", pattern, len(m))
	}
	return m[0]
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// packaged is what both packages must hold.
var packaged = []string{
	"/usr/bin/dbmem",
	"/usr/lib/systemd/system/dbmem-exporter.service",
	"/usr/lib/systemd/system/dbmem-watch-record.service",
	"/usr/lib/systemd/system/dbmem-pg-helper.socket",
	"/usr/lib/systemd/system/dbmem-pg-helper@.service",
	"/etc/default/dbmem-exporter",
	"/etc/default/dbmem-watch-record",
	"/usr/share/man/man1/dbmem.1.gz",
	"/usr/share/man/man1/dbmem-exporter.1.gz",
	"/usr/share/man/man1/dbmem-watch.1.gz",
	"/usr/share/bash-completion/completions/dbmem",
	"/usr/share/fish/vendor_completions.d/dbmem.fish",
	"/usr/share/dbmem/grafana/dbmem-dashboard.json",
	"/usr/share/dbmem/prometheus/dbmem-alerts.yml",
	"/usr/share/dbmem/prometheus/tests/dbmem-alerts-test.yml",
	"/usr/share/dbmem/kubernetes/dbmem-exporter-daemonset.yaml",
}

// The binary in the tarball is static (no program interpreter: it runs in
// an empty container image) and says its version.
func TestTarballBinaryIsStatic(t *testing.T) {
	tgz := one(t, "dbmem-*-linux-"+runtime.GOARCH+".tar.gz")
	dir := t.TempDir()
	run(t, "tar", "-xzf", tgz, "-C", dir)
	top := strings.TrimSuffix(filepath.Base(tgz), ".tar.gz")
	bin := filepath.Join(dir, top, "dbmem")
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a program interpreter: not static", bin)
		}
	}
	if f.Section(".symtab") != nil {
		t.Errorf("%s keeps its symbol table: want -s -w", bin)
	}
	st, _ := os.Stat(bin)
	t.Logf("static binary: %d bytes (%.1f MiB)", st.Size(), float64(st.Size())/(1<<20))
	// Alone in an empty root, as in a FROM scratch image.
	root := t.TempDir()
	run(t, "cp", bin, filepath.Join(root, "dbmem"))
	if out := run(t, "chroot", root, "/dbmem", "--version"); !strings.Contains(out, testVersion) {
		t.Errorf("dbmem --version in an empty root: %q, want %s", out, testVersion)
	}
	for _, f := range []string{"LICENSE", "README.md", "systemd/dbmem-exporter.service", "default/dbmem-exporter", "man/dbmem.1.gz", "completions/_dbmem", "kubernetes/Containerfile"} {
		if _, err := os.Stat(filepath.Join(dir, top, f)); err != nil {
			t.Errorf("tarball lacks %s", f)
		}
	}
}

// rpm (Debian's package rpm) reads the .rpm: digests, metadata, files.
func TestRPM(t *testing.T) {
	if _, err := exec.LookPath("rpm"); err != nil {
		t.Fatal("rpm not found: install the Debian package rpm (scripts/test does)")
	}
	rpmFile := one(t, "dbmem-*.rpm")
	if out := run(t, "rpm", "--checksig", "--nosignature", rpmFile); !strings.Contains(out, "digests OK") {
		t.Errorf("rpm --checksig: %s", out)
	}
	info := run(t, "rpm", "-qp", "--queryformat", "%{NAME} %{VERSION} %{LICENSE} %{ARCH}\n", rpmFile)
	if want := "dbmem " + testVersion + " Apache-2.0 "; !strings.HasPrefix(info, want) {
		t.Errorf("rpm -qp: %q, want %q...", info, want)
	}
	files := run(t, "rpm", "-qpl", rpmFile)
	for _, f := range append(packaged, "/usr/share/zsh/site-functions/_dbmem", "/usr/share/licenses/dbmem/LICENSE") {
		if !strings.Contains(files, f+"\n") {
			t.Errorf("rpm lacks %s", f)
		}
	}
	if conf := run(t, "rpm", "-qpc", rpmFile); !strings.Contains(conf, "/etc/default/dbmem-exporter") {
		t.Errorf("/etc/default/dbmem-exporter is not a config file: %s", conf)
	}
}
