package apply

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/kerneltest"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/render"
)

// guard takes the kernel test lock and registers the restoration of each
// sysctl's current value (kerneltest journals it and restores it in
// t.Cleanup, even when the test fails), then returns the values.
func guard(t *testing.T, names ...string) map[string]string {
	t.Helper()
	kerneltest.Lock(t)
	cur := map[string]string{}
	for _, n := range names {
		v := readSysctl(t, n)
		kerneltest.Set(t, kerneltest.SysctlPath(n), v)
		cur[n] = v
	}
	return cur
}

func readSysctl(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(kerneltest.SysctlPath(name))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// testOptions applies to the real kernel and writes files and journals
// into a temporary directory; the clock ticks a second per call so run
// ids differ.
func testOptions(t *testing.T) Options {
	root := t.TempDir()
	tick := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	return Options{FS: linux.DefaultFS(), FilesRoot: filepath.Join(root, "host"), JournalDir: filepath.Join(root, "journal"),
		Render: render.Options{Generated: "dbmem test"}, Engines: &Engines{},
		Now: func() time.Time { tick = tick.Add(time.Second); return tick }}
}

func setting(name, value string) finding.Setting {
	target := finding.TargetSysctl
	if strings.Contains(name, "/") {
		target = finding.TargetSysfs
	}
	return finding.Setting{Target: target, Name: name, Value: value, Formula: "test", Why: "test of dbmem apply"}
}

// other returns a value different from cur.
func other(cur, a, b string) string {
	if cur == a {
		return b
	}
	return a
}

func mustNotExist(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists (err %v)", path, err)
	}
}
