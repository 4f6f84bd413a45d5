package linux

import (
	"fmt"
	"strconv"
	"strings"
)

// SysctlNames are the kernel settings dbmem reads for every host.
var SysctlNames = []string{
	"vm.overcommit_memory", "vm.overcommit_ratio", "vm.overcommit_kbytes",
	"vm.swappiness", "vm.nr_hugepages", "vm.nr_overcommit_hugepages",
	"vm.hugetlb_shm_group", "vm.zone_reclaim_mode", "vm.min_free_kbytes",
	"vm.dirty_background_bytes", "vm.dirty_bytes", "vm.dirty_background_ratio", "vm.dirty_ratio",
	"kernel.shmmax", "kernel.shmall", "kernel.shmmni",
}

// Sysctls maps a sysctl name ("vm.swappiness") to its value as the kernel
// prints it. Settings this kernel does not have are absent.
type Sysctls map[string]string

// Int returns a setting as an integer; ok is false when it is absent or not
// a number.
func (s Sysctls) Int(name string) (int64, bool) {
	v, err := strconv.ParseInt(s[name], 10, 64)
	return v, err == nil
}

// Uint is Int for settings that may exceed int64 (kernel.shmmax).
func (s Sysctls) Uint(name string) (uint64, bool) {
	v, err := strconv.ParseUint(s[name], 10, 64)
	return v, err == nil
}

// SysctlPath maps "vm.swappiness" to its file under the procfs root.
func (fs FS) SysctlPath(name string) string {
	return fs.ProcPath(append([]string{"sys"}, strings.Split(name, ".")...)...)
}

// ReadSysctl reads one setting; the value is trimmed and tabs become spaces.
func ReadSysctl(fs FS, name string) (string, error) {
	b, err := fs.ReadFile(fs.SysctlPath(name))
	if err != nil {
		return "", err
	}
	return strings.Join(strings.Fields(string(b)), " "), nil
}

// ReadSysctls reads the names; those that cannot be read are returned as
// gaps (zone_reclaim_mode is missing on kernels without NUMA).
func ReadSysctls(fs FS, names []string) (Sysctls, []Gap) {
	out := Sysctls{}
	var gaps []Gap
	for _, n := range names {
		v, err := ReadSysctl(fs, n)
		if err != nil {
			gaps = append(gaps, gapFor(n, err))
			continue
		}
		out[n] = v
	}
	return out, gaps
}

// KernelRelease reads the running kernel's release ("6.18.44-fc-v769").
func KernelRelease(fs FS) (string, error) {
	return ReadSysctl(fs, "kernel.osrelease")
}

// KernelVersion parses "6.18.44-fc" into 6, 18 (0, 0 when unreadable).
func KernelVersion(release string) (major, minor int) {
	f := strings.FieldsFunc(release, func(r rune) bool { return r < '0' || r > '9' })
	if len(f) >= 2 {
		major, _ = strconv.Atoi(f[0])
		minor, _ = strconv.Atoi(f[1])
	}
	return major, minor
}

// readUintFile reads a file holding one unsigned number.
func readUintFile(fs FS, path string) (uint64, error) {
	b, err := fs.ReadFile(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("parse %s: %q is not a number", fs.Display(path), strings.TrimSpace(string(b)))
	}
	return v, nil
}
