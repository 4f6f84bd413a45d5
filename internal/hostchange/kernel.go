package hostchange

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Kernel files the kit writes outside the journal.
const (
	// NrHugepagesPath is the default-size huge page pool (vm.nr_hugepages).
	NrHugepagesPath = "/proc/sys/vm/nr_hugepages"
	// CompactMemoryPath asks the kernel to compact memory when written.
	CompactMemoryPath = "/proc/sys/vm/compact_memory"
)

// Targets of a kernel Setting.
const (
	TargetSysctl = "sysctl"
	TargetSysfs  = "sysfs"
)

// Setting names a kernel setting: a sysctl ("vm.nr_hugepages") or a file
// under /sys by its path there ("kernel/mm/transparent_hugepage/enabled").
type Setting struct {
	Target string `json:"target"`
	Name   string `json:"name"`
}

// Sysctl names a sysctl setting.
func Sysctl(name string) Setting { return Setting{Target: TargetSysctl, Name: name} }

// Path is the setting's file under fs's roots ("" for an unknown target).
func (s Setting) Path(fs linux.FS) string {
	switch s.Target {
	case TargetSysctl:
		return fs.SysctlPath(s.Name)
	case TargetSysfs:
		return fs.SysPath(s.Name)
	}
	return ""
}

// String is the sysctl's name, or the sysfs file's path.
func (s Setting) String() string {
	if s.Target == TargetSysfs {
		return "/sys/" + s.Name
	}
	return s.Name
}

// SettingAt names the setting at path, a file under fs's /proc/sys or
// /sys; ok is false for any other path.
func SettingAt(fs linux.FS, path string) (Setting, bool) {
	path = filepath.Clean(path)
	if rel, ok := under(fs.ProcPath("sys"), path); ok {
		return Sysctl(strings.ReplaceAll(rel, "/", ".")), true
	}
	if rel, ok := under(fs.SysPath(), path); ok {
		return Setting{Target: TargetSysfs, Name: rel}, true
	}
	return Setting{}, false
}

func under(dir, path string) (string, bool) {
	rel, err := filepath.Rel(dir, path)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return "", false
	}
	return rel, true
}

// Read returns a kernel file's value without surrounding white space.
func Read(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// ReadInt reads a kernel file that holds one number.
func ReadInt(path string) (int, error) {
	s, err := Read(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%s holds %q, not a number", path, s)
	}
	return v, nil
}

// Write writes value to a kernel file (never creating one) and returns
// what the kernel reads back, which can differ (a huge page pool that
// could only partly be allocated).
func Write(path, value string) (string, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return "", err
	}
	_, err = f.WriteString(value + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	return Read(path)
}

// Restore writes old back and checks that the kernel reads it back (the
// selected word of a choice file such as transparent_hugepage/enabled).
func Restore(path, old string) error {
	got, err := Write(path, old)
	if err != nil {
		return err
	}
	if !SameValue(got, old) {
		return fmt.Errorf("kernel reads back %q", got)
	}
	return nil
}

// GrowPool sets the huge page pool at path to want pages and returns what
// the kernel allocated. When that falls short it compacts memory and
// retries once; a pool still short is not an error here, the caller says
// what it needed.
func GrowPool(path string, want int) (int, error) {
	got, err := writeInt(path, want)
	if err == nil && got < want {
		os.WriteFile(CompactMemoryPath, []byte("1\n"), 0o200)
		got, err = writeInt(path, want)
	}
	return got, err
}

func writeInt(path string, v int) (int, error) {
	if _, err := Write(path, strconv.Itoa(v)); err != nil {
		return 0, fmt.Errorf("write %d to %s: %w", v, path, err)
	}
	return ReadInt(path)
}

// SameValue compares values as the kernel prints them: white space runs
// collapsed, the selected word of a choice list.
func SameValue(a, b string) bool {
	return strings.Join(strings.Fields(linux.SelectedWord(a)), " ") == strings.Join(strings.Fields(linux.SelectedWord(b)), " ")
}
