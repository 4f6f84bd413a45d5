package linux

import (
	"os"
	"path/filepath"
	"strings"
)

// FS names the roots dbmem reads the kernel's view from. A live host uses
// DefaultFS; a captured bundle or a test fixture is read by pointing the roots
// at its directories.
type FS struct {
	// Proc is the procfs mount, "/proc" on a live host.
	Proc string
	// Sys is the sysfs mount, "/sys" on a live host.
	Sys string
	// Root is where other host files (data directories, config files) are
	// found, "/" on a live host.
	Root string
}

// DefaultFS returns the roots of the running host.
func DefaultFS() FS { return FS{Proc: "/proc", Sys: "/sys", Root: "/"} }

// ProcPath joins elements under the procfs root.
func (fs FS) ProcPath(elem ...string) string {
	return filepath.Join(append([]string{fs.Proc}, elem...)...)
}

// SysPath joins elements under the sysfs root.
func (fs FS) SysPath(elem ...string) string {
	return filepath.Join(append([]string{fs.Sys}, elem...)...)
}

// HostPath maps an absolute host path (as the kernel or a process reports it)
// to where it can be read under Root.
func (fs FS) HostPath(abs string) string {
	root := fs.Root
	if root == "" {
		root = "/"
	}
	return filepath.Join(root, strings.TrimPrefix(abs, "/"))
}

// IsLive reports whether the roots are those of the running host, so that
// things only a live host has (sockets, signals) may be used.
func (fs FS) IsLive() bool {
	return filepath.Clean(fs.Proc) == "/proc" && filepath.Clean(fs.Sys) == "/sys" &&
		(fs.Root == "" || filepath.Clean(fs.Root) == "/")
}

// readFile reads a whole kernel file. Kernel files report a size of 0, so
// os.ReadFile's growth strategy is what we want.
func readFile(path string) ([]byte, error) {
	return os.ReadFile(path)
}
