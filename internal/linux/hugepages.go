package linux

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// HugePool is one huge page size's pool, host-wide or on one NUMA node.
// Counts are pages. Reserved and Overcommit exist for host-wide pools only
// (nil on a node, and Overcommit nil for a pool taken from meminfo when
// vm.nr_overcommit_hugepages was not read).
type HugePool struct {
	PageSizeBytes uint64  `json:"page_size_bytes"`
	Node          int     `json:"node"` // -1 for the host-wide pool
	Total         uint64  `json:"total"`
	Free          uint64  `json:"free"`
	Reserved      *uint64 `json:"reserved,omitempty"`   // host-wide only
	Surplus       uint64  `json:"surplus"`              // pages beyond Total, from overcommit
	Overcommit    *uint64 `json:"overcommit,omitempty"` // host-wide only: nr_overcommit_hugepages
	// Source is where the pool was read: PoolFromSysfs, or PoolFromMeminfo
	// (the default size only, when sysfs has no such pool).
	Source string `json:"source"`
}

// Where a pool was read.
const (
	PoolFromSysfs   = "sysfs"
	PoolFromMeminfo = "meminfo"
)

// InUse is the pages that are mapped or promised: Total - Free + Reserved
// (reserved pages count as free until first touched). ok is false for a
// node's pool, which has no reservation count.
func (p HugePool) InUse() (pages uint64, ok bool) {
	if p.Reserved == nil {
		return 0, false
	}
	return p.Total - min(p.Free, p.Total) + *p.Reserved, true
}

// Bytes is the memory the pool takes from the rest of the system: Total
// pages (sysfs nr_hugepages and meminfo HugePages_Total are the kernel's
// nr_huge_pages, which counts surplus pages already), as meminfo's
// Hugetlb and the kernel's hugetlb_total_pages() count them.
func (p HugePool) Bytes() uint64 { return p.Total * p.PageSizeBytes }

// ReadHugePools reads every huge page size under /sys/kernel/mm/hugepages
// and every NUMA node's share, sorted by size then node.
func ReadHugePools(fs FS) ([]HugePool, []Gap) {
	var pools []HugePool
	var gaps []Gap
	dirs, err := fs.ReadDir(fs.SysPath("kernel/mm/hugepages"))
	if err != nil {
		return nil, []Gap{gapFor("huge page pools (/sys/kernel/mm/hugepages)", err)}
	}
	for _, d := range dirs {
		p, err := readPool(fs, fs.SysPath("kernel/mm/hugepages", d), d, -1)
		if err != nil {
			gaps = append(gaps, gapFor("huge page pool "+d, err))
			continue
		}
		pools = append(pools, p)
	}
	nodes, ng := readNodePools(fs)
	return sortPools(append(pools, nodes...)), append(gaps, ng...)
}

// sortPools orders pools by page size, then node (host-wide first).
func sortPools(pools []HugePool) []HugePool {
	sort.Slice(pools, func(i, j int) bool {
		if pools[i].PageSizeBytes != pools[j].PageSizeBytes {
			return pools[i].PageSizeBytes < pools[j].PageSizeBytes
		}
		return pools[i].Node < pools[j].Node
	})
	return pools
}

func readNodePools(fs FS) ([]HugePool, []Gap) {
	nodes, err := fs.ReadDir(fs.SysPath("devices/system/node"))
	if err != nil {
		return nil, nil // no NUMA information: not an error
	}
	var pools []HugePool
	var gaps []Gap
	for _, n := range nodes {
		id, err := strconv.Atoi(strings.TrimPrefix(n, "node"))
		if !strings.HasPrefix(n, "node") || err != nil {
			continue
		}
		dirs, _ := fs.ReadDir(fs.SysPath("devices/system/node", n, "hugepages"))
		for _, d := range dirs {
			p, err := readPool(fs, fs.SysPath("devices/system/node", n, "hugepages", d), d, id)
			if err != nil {
				gaps = append(gaps, gapFor(fmt.Sprintf("huge page pool %s on node %d", d, id), err))
				continue
			}
			pools = append(pools, p)
		}
	}
	return pools, gaps
}

type poolFile struct {
	name string
	dst  *uint64
}

// readPool reads a hugepages-<size>kB directory.
func readPool(fs FS, dir, name string, node int) (HugePool, error) {
	kb, err := poolSizeKB(name)
	if err != nil {
		return HugePool{}, err
	}
	p := HugePool{PageSizeBytes: kb << 10, Node: node, Source: PoolFromSysfs}
	var resv, over uint64
	files := []poolFile{{"nr_hugepages", &p.Total}, {"free_hugepages", &p.Free}, {"surplus_hugepages", &p.Surplus}}
	if node < 0 {
		files = append(files, poolFile{"resv_hugepages", &resv}, poolFile{"nr_overcommit_hugepages", &over})
	}
	for _, f := range files {
		if *f.dst, err = readUintFile(fs, dir+"/"+f.name); err != nil {
			return p, err
		}
	}
	if node < 0 {
		p.Reserved, p.Overcommit = &resv, &over
	}
	return p, nil
}

// poolSizeKB parses "hugepages-2048kB".
func poolSizeKB(name string) (uint64, error) {
	s := strings.TrimSuffix(strings.TrimPrefix(name, "hugepages-"), "kB")
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v == 0 {
		return 0, fmt.Errorf("huge page directory %q is not hugepages-<N>kB", name)
	}
	return v, nil
}

// THP is the transparent huge page configuration: the selected word of each
// file under /sys/kernel/mm/transparent_hugepage ("always", "madvise",
// "never", ...); "" when the file is absent.
type THP struct {
	Enabled      string `json:"enabled"`
	Defrag       string `json:"defrag"`
	ShmemEnabled string `json:"shmem_enabled"`
}

// ReadTHP reads the transparent huge page settings.
func ReadTHP(fs FS) (THP, []Gap) {
	var t THP
	var gaps []Gap
	for _, f := range []struct {
		name string
		dst  *string
	}{{"enabled", &t.Enabled}, {"defrag", &t.Defrag}, {"shmem_enabled", &t.ShmemEnabled}} {
		b, err := fs.ReadFile(fs.SysPath("kernel/mm/transparent_hugepage", f.name))
		if err != nil {
			gaps = append(gaps, gapFor("transparent_hugepage/"+f.name, err))
			continue
		}
		*f.dst = SelectedWord(string(b))
	}
	return t, gaps
}

// SelectedWord returns the bracketed word of "always [madvise] never", or the
// whole trimmed text when nothing is bracketed.
func SelectedWord(s string) string {
	i := strings.IndexByte(s, '[')
	j := strings.IndexByte(s, ']')
	if i >= 0 && j > i {
		return s[i+1 : j]
	}
	return strings.TrimSpace(s)
}
