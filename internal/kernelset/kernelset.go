package kernelset

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Default paths of the machine-wide lock and journal, shared by tests,
// benchmarks and the lab.
const (
	DefaultLockPath    = "/run/lock/dbmem-kerneltest.lock"
	DefaultJournalPath = "/run/lock/dbmem-kerneltest.journal"
	// NrHugepagesPath is the default-size huge page pool (vm.nr_hugepages).
	NrHugepagesPath = "/proc/sys/vm/nr_hugepages"
	// CompactMemoryPath asks the kernel to compact memory when written.
	CompactMemoryPath = "/proc/sys/vm/compact_memory"
)

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

// Write writes value to a kernel file and returns what the kernel reads
// back, which can differ (a huge page pool that could only partly be
// allocated).
func Write(path, value string) (string, error) {
	if err := os.WriteFile(path, []byte(value+"\n"), 0o644); err != nil {
		return "", err
	}
	return Read(path)
}

// Restore writes old back and checks that the kernel reads it back.
func Restore(path, old string) error {
	got, err := Write(path, old)
	if err != nil {
		return err
	}
	if got != old {
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
