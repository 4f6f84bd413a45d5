package linux

import (
	"bytes"
	"os"
	"testing"
)

// TestReadKernelFile reads real kernel files with plain system calls and
// compares them with os.ReadFile's: a short one, one longer than the
// first buffer (this process's maps), a bounded read, and a process that
// does not exist.
func TestReadKernelFile(t *testing.T) {
	fs := DefaultFS()
	for _, p := range []string{"/proc/self/stat", "/proc/meminfo", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		if !fs.kernelFile(p) {
			t.Errorf("%s: not read as a kernel file", p)
		}
		got, err := fs.ReadFile(p)
		want, werr := os.ReadFile(p)
		if (err == nil) != (werr == nil) || len(got) == 0 && werr == nil {
			t.Fatalf("%s: %v, os.ReadFile: %v", p, err, werr)
		}
		if p != "/proc/self/stat" && !bytes.Equal(keys(got), keys(want)) { // stat's times and meminfo's numbers move
			t.Errorf("%s: %q, os.ReadFile %q", p, got, want)
		}
	}
	maps, err := readKernelFile("/proc/self/maps", 0)
	if err != nil || len(maps) <= 2048 || !bytes.HasSuffix(maps, []byte("\n")) {
		t.Errorf("maps: %d bytes, %v: want the whole text, longer than the first buffer", len(maps), err)
	}
	head, err := readKernelFile("/proc/self/maps", 100)
	if err != nil || !bytes.Equal(head, maps[:100]) {
		t.Errorf("first 100 bytes of maps: %q, %v", head, err)
	}
	if _, err := fs.ReadFile("/proc/999999999/status"); !IsGone(err) {
		t.Errorf("a process that does not exist: %v, want gone", err)
	}
	if (FS{Proc: "/tmp/x", Sys: "/sys", Root: "/"}).kernelFile("/proc/1/stat") {
		t.Error("a fixture's tree is not the running kernel's")
	}
	for _, p := range []string{"/proc/1/root/etc/fifo", "/proc/self/cwd/x", "/proc/self/fd/0", "/proc/1/task/1/root/dev/zero"} {
		if fs.kernelFile(p) {
			t.Errorf("%s: read as a kernel file, but a FIFO or device may be there", p)
		}
	}
}

// keys is the first word of every line: what two reads of a file whose
// numbers move between them (meminfo) still share.
func keys(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if f := bytes.Fields(l); len(f) > 0 {
			out = append(append(out, f[0]...), '\n')
		}
	}
	return out
}
