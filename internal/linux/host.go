package linux

import (
	"fmt"
)

// Host is the kernel's memory picture of the whole machine at one moment.
type Host struct {
	Hostname      string     `json:"hostname"`
	KernelRelease string     `json:"kernel_release"`
	Meminfo       Meminfo    `json:"meminfo"`
	HugePools     []HugePool `json:"huge_pools"`
	THP           THP        `json:"thp"`
	Sysctls       Sysctls    `json:"sysctls"`
	// NUMANodes is the number of nodes in sysfs; 0 (omitted) when unknown.
	NUMANodes int `json:"numa_nodes,omitempty"`
}

// ReadHost reads the host-wide files. Only an unreadable /proc/meminfo is an
// error; anything else missing is returned as a gap.
func ReadHost(fs FS) (Host, []Gap, error) {
	var h Host
	var gaps []Gap
	var err error
	if h.Meminfo, err = ReadMeminfo(fs); err != nil {
		return h, nil, err
	}
	gaps = append(gaps, meminfoGaps(h.Meminfo)...)
	if h.KernelRelease, err = KernelRelease(fs); err != nil {
		gaps = append(gaps, gapFor("kernel release", err))
	}
	h.Hostname, _ = ReadSysctl(fs, "kernel.hostname")
	var g []Gap
	h.HugePools, g = ReadHugePools(fs)
	gaps = append(gaps, g...)
	h.THP, g = ReadTHP(fs)
	gaps = append(gaps, g...)
	h.Sysctls, g = ReadSysctls(fs, SysctlNames)
	gaps = append(gaps, dropOptionalSysctlGaps(g)...)
	h.HugePools, g = reconcilePools(h.HugePools, h.Meminfo, h.Sysctls)
	gaps = append(gaps, g...)
	h.NUMANodes = countNodes(fs)
	return h, gaps, nil
}

// dropOptionalSysctlGaps hides settings that only exist on some kernels
// (zone_reclaim_mode needs CONFIG_NUMA) when they are simply absent.
func dropOptionalSysctlGaps(gaps []Gap) []Gap {
	var out []Gap
	for _, g := range gaps {
		if g.What == "vm.zone_reclaim_mode" && g.Is(GapAbsent) {
			continue
		}
		out = append(out, g)
	}
	return out
}

func countNodes(fs FS) int {
	ents, err := fs.ReadDir(fs.SysPath("devices/system/node"))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		var id int
		if _, err := fmt.Sscanf(e, "node%d", &id); err == nil {
			n++
		}
	}
	return n
}

// DefaultPool returns the host-wide pool of the default huge page size
// (Hugepagesize in meminfo), or false when there is none or the default
// size is unknown.
func (h Host) DefaultPool() (HugePool, bool) {
	size, ok := h.DefaultPageSize()
	if !ok {
		return HugePool{}, false
	}
	return h.Pool(size)
}

// DefaultPageSize is the default huge page size (meminfo Hugepagesize);
// ok is false when meminfo has no such line.
func (h Host) DefaultPageSize() (uint64, bool) {
	if h.Meminfo.HugepagesizeBytes == nil {
		return 0, false
	}
	return *h.Meminfo.HugepagesizeBytes, true
}

// Pool returns the host-wide pool of the given page size.
func (h Host) Pool(pageSize uint64) (HugePool, bool) {
	for _, p := range h.HugePools {
		if p.Node < 0 && p.PageSizeBytes == pageSize {
			return p, true
		}
	}
	return HugePool{}, false
}
