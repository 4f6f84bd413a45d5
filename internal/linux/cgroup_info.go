package linux

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
)

// CgroupInfo is where a process runs: the container or pod its cgroup path
// names (nil on a plain host service), and the memory and hugetlb limits
// that apply to it.
type CgroupInfo struct {
	PID int `json:"pid"`
	// Unit is the systemd service the process runs in ("mariadb.service"),
	// where its limits (LimitMEMLOCK=) are set; "" when none.
	Unit      string          `json:"unit,omitempty"`
	Container *Container      `json:"container,omitempty"`
	Memory    *CgroupMemory   `json:"memory,omitempty"`
	Hugetlb   []CgroupHugetlb `json:"hugetlb,omitempty"`
}

// HugetlbFor returns the hugetlb view for one page size.
func (c CgroupInfo) HugetlbFor(pageSize uint64) (CgroupHugetlb, bool) {
	for _, h := range c.Hugetlb {
		if h.PageSizeBytes == pageSize {
			return h, true
		}
	}
	return CgroupHugetlb{}, false
}

// ReadCgroupInfo reads pid's cgroup: container, memory controller, and the
// hugetlb controller for each of pageSizes (the host's pool sizes). Parts
// that cannot be read are gaps; an error means the process is gone or its
// cgroup file unreadable.
func ReadCgroupInfo(fs FS, pid int, pageSizes []uint64) (CgroupInfo, []Gap, error) {
	info := CgroupInfo{PID: pid}
	b, err := readProcFile(fs, pid, "cgroup")
	if err != nil {
		return info, nil, err
	}
	lines := ParseProcCgroup(bytes.NewReader(b))
	if c, ok := ContainerOf(lines); ok {
		info.Container = &c
	}
	info.Unit = SystemdUnit(lines)
	var gaps []Gap
	if m, ok, err := ReadCgroupMemory(fs, pid); err != nil {
		gaps = append(gaps, procGap(pid, "cgroup (memory controller)", err))
	} else if ok {
		info.Memory = &m
	}
	if h, _, err := ReadCgroupHugetlb(fs, pid, pageSizes); err != nil {
		gaps = append(gaps, procGap(pid, "cgroup (hugetlb controller)", err))
	} else {
		info.Hugetlb = h
	}
	return info, dropGone(gaps), nil
}

// SystemdUnit returns the last ".service" element of the systemd or
// unified hierarchy's path ("/system.slice/mariadb.service" ->
// "mariadb.service"), or "".
func SystemdUnit(lines []CgroupLine) string {
	for _, l := range lines {
		if l.ID != 0 && !slices.Contains(l.Controllers, "name=systemd") {
			continue
		}
		parts := strings.Split(l.Path, "/")
		for i := len(parts) - 1; i >= 0; i-- {
			if strings.HasSuffix(parts[i], ".service") {
				return parts[i]
			}
		}
	}
	return ""
}

// PoolPageSizes lists the page sizes of the host-wide huge page pools.
func (h Host) PoolPageSizes() []uint64 {
	var out []uint64
	for _, p := range h.HugePools {
		if p.Node < 0 {
			out = append(out, p.PageSizeBytes)
		}
	}
	return out
}

// Environment says whether the reader (dbmem itself) runs in a container.
// Inside one, the kernel settings it reads (sysctls, huge page pools) are
// the node's: shared by every container, and usually read-only (Docker and
// Kubernetes mount /proc/sys read-only).
type Environment struct {
	InContainer bool       `json:"in_container"`
	Container   *Container `json:"container,omitempty"`
	// Markers are the container marker files present (/.dockerenv,
	// /run/.containerenv). Alone they do not make a container: images
	// copied onto VMs keep them.
	Markers []string `json:"markers,omitempty"`
	// RootFSType is the type of the filesystem mounted on / ("overlay" in
	// a container, "ext4" on a VM).
	RootFSType string `json:"root_fs_type,omitempty"`
	// SysctlsReadOnly: /proc/sys is mounted read-only here, so kernel
	// settings can only be changed on the node.
	SysctlsReadOnly bool `json:"sysctls_read_only,omitempty"`
}

// containerMarkers are files container runtimes create in the container's root.
var containerMarkers = []string{"/.dockerenv", "/run/.containerenv"}

// ReadEnvironment looks at /proc/self/cgroup, /proc/self/mountinfo and the
// marker files under the root. With a cgroup namespace the path is "/" and
// only the mounts and markers tell.
func ReadEnvironment(fs FS) Environment {
	var e Environment
	if b, err := fs.ReadFile(fs.ProcPath("self", "cgroup")); err == nil {
		if c, ok := ContainerOf(ParseProcCgroup(bytes.NewReader(b))); ok {
			e.Container, e.InContainer = &c, true
		}
	}
	if b, err := fs.ReadFile(fs.ProcPath("self", "mountinfo")); err == nil {
		e.RootFSType, e.SysctlsReadOnly = parseMountinfo(string(b))
	}
	for _, m := range containerMarkers {
		if fs.Exists(fs.HostPath(m)) {
			e.Markers = append(e.Markers, m)
		}
	}
	overlay := strings.Contains(e.RootFSType, "overlay")
	if len(e.Markers) > 0 && (overlay || e.SysctlsReadOnly) || overlay && e.SysctlsReadOnly {
		e.InContainer = true
	}
	return e
}

// parseMountinfo returns the filesystem type of "/" and whether /proc/sys
// is mounted read-only. Lines that do not parse are skipped.
func parseMountinfo(s string) (rootType string, sysRO bool) {
	for _, line := range strings.Split(s, "\n") {
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 6 || len(g) < 1 {
			continue
		}
		switch f[4] {
		case "/":
			rootType = g[0]
		case "/proc/sys":
			sysRO = hasOption(f[5], "ro")
		}
	}
	return rootType, sysRO
}

func hasOption(opts, o string) bool { return slices.Contains(strings.Split(opts, ","), o) }

// String describes the environment in a few words.
func (e Environment) String() string {
	switch {
	case e.Container != nil:
		return "in a container (" + e.Container.String() + ")"
	case e.InContainer:
		return fmt.Sprintf("in a container (%s, root filesystem %s)", strings.Join(e.Markers, " "), e.RootFSType)
	case len(e.Markers) > 0:
		return fmt.Sprintf("on the host (%s present, but / is %s and /proc/sys writable: not a container)", strings.Join(e.Markers, " "), e.RootFSType)
	}
	return "on the host"
}
