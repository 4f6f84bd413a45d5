package linux

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsNameThePathOnce: the os package's error already names the path;
// wrapping it again gave "readlink /proc/8007/cwd: readlink /proc/8007/cwd:
// ..." (issue 12). Each path is said once, and errors.Is still works.
func TestErrorsNameThePathOnce(t *testing.T) {
	dir := t.TempDir()
	fs := FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: dir}
	os.MkdirAll(filepath.Join(dir, "proc", "8007"), 0o755)
	_, linkErr := ReadLink(fs, 8007, "cwd")
	_, readErr := ReadStatus(fs, 8007)
	_, listErr := ListPIDs(FS{Proc: filepath.Join(dir, "none")})
	_, hostErr := ReadMeminfo(fs)
	for _, c := range []struct {
		err  error
		path string
	}{{linkErr, "/proc/8007/cwd"}, {readErr, "/proc/8007/status"}, {listErr, "/none"}, {hostErr, "/proc/meminfo"}} {
		if c.err == nil || strings.Count(c.err.Error(), c.path) != 1 || !IsGone(c.err) {
			t.Errorf("error %v: want %s named once, and IsGone", c.err, c.path)
		}
	}
}

// TestDisplayLabel: a bundle's roots are named by the file the user gave
// and the path on the captured host, not the extraction directory.
func TestDisplayLabel(t *testing.T) {
	dir := t.TempDir()
	fs := FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root"), Label: "dump.tar.gz"}
	_, err := ReadStatus(fs, 42)
	if err == nil || err.Error() != "read dump.tar.gz:/proc/42/status: no such file or directory" || strings.Contains(err.Error(), dir) {
		t.Errorf("bundle error %v: want it to name dump.tar.gz:/proc/42/status only", err)
	}
	if got := fs.Display(fs.HostPath("/etc/postgresql/15/main/postgresql.conf")); got != "dump.tar.gz:/etc/postgresql/15/main/postgresql.conf" {
		t.Errorf("Display of a host file: %q", got)
	}
	if got := fs.Display(filepath.Join(dir, "sys", "kernel/mm/hugepages")); got != "dump.tar.gz:/sys/kernel/mm/hugepages" {
		t.Errorf("Display of a sysfs file: %q", got)
	}
}
