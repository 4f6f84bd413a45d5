package linux

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{{"0-1\n", 2, true}, {"0", 1, true}, {"0-3,8,10-11", 7, true}, {"", 0, false}, {"3-1", 0, false}, {"a", 0, false}, {"0-99999999", 0, false}} {
		n, err := ParseCPUList(c.in)
		if (err == nil) != c.ok || n != c.want {
			t.Errorf("ParseCPUList(%q) = %d, %v; want %d ok=%v", c.in, n, err, c.want, c.ok)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0-1", "0-3,8,10-11", "", "1-0", "65535"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := ParseCPUList(s); err == nil && (n < 1 || n > 1<<20*maxCPUs) {
			t.Fatalf("%q: %d CPUs", s, n)
		}
	})
}

func TestParseCPUMax(t *testing.T) {
	for _, c := range []struct {
		in   string
		cpus float64
		ok   bool
	}{{"400000 100000\n", 4, true}, {"max 100000", 0, false}, {"150000 100000", 1.5, true}, {"0 100000", 0, false}, {"x y", 0, false}, {"", 0, false}} {
		q, p, ok := ParseCPUMax(c.in)
		if ok != c.ok || ok && q/p != c.cpus {
			t.Errorf("ParseCPUMax(%q) = %g/%g %v, want %g CPUs %v", c.in, q, p, ok, c.cpus, c.ok)
		}
	}
}

// TestReadCgroupCPUsV2: the lowest quota on the path, rounded up.
func TestReadCgroupCPUsV2(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		t.Helper()
		full := root + "/" + p
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("proc/42/cgroup", "0::/kubepods/pod1/ctr\n")
	write("sys/fs/cgroup/cgroup.controllers", "cpu memory\n")
	write("sys/fs/cgroup/kubepods/cpu.max", "max 100000\n")
	write("sys/fs/cgroup/kubepods/pod1/cpu.max", "350000 100000\n")
	write("sys/fs/cgroup/kubepods/pod1/ctr/cpu.max", "max 100000\n")
	fs := FS{Proc: root + "/proc", Sys: root + "/sys", Root: root}
	n, at, ok, err := ReadCgroupCPUs(fs, 42)
	if err != nil || !ok || n != 4 || at != "/kubepods/pod1" {
		t.Fatalf("ReadCgroupCPUs = %d %q %v %v, want 4 CPUs at /kubepods/pod1", n, at, ok, err)
	}
}

func FuzzParseCPUMax(f *testing.F) {
	for _, s := range []string{"400000 100000", "max 100000", "", "1 1 1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if q, p, ok := ParseCPUMax(s); ok && (q <= 0 || p <= 0) {
			t.Fatalf("%q: %g/%g", s, q, p)
		}
	})
}
