package apply

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/render"
)

const pageSize = 4096

// hostMem is what CommitLimit and the pools' safety depend on.
type hostMem struct {
	MemTotal, MemAvailable, SwapTotal, CommittedAS uint64            // bytes
	Pools                                          map[uint64]uint64 // page size -> pages (with surplus)
	DefaultPage                                    uint64
	Mode                                           int64
	Ratio, KBytes                                  uint64
}

func readHostMem(o Options) (hostMem, error) {
	m, err := linux.ReadMeminfo(o.FS)
	if err != nil {
		return hostMem{}, err
	}
	avail, _, ok := m.Available()
	if m.MemTotalBytes == nil || !ok || m.SwapTotalBytes == nil || m.CommittedASBytes == nil || m.HugepagesizeBytes == nil {
		return hostMem{}, fmt.Errorf("%s lacks MemTotal, MemAvailable, SwapTotal, Committed_AS or Hugepagesize: "+
			"the safety checks cannot run, nothing is changed (apply needs a kernel with huge pages)", o.FS.ProcPath("meminfo"))
	}
	h := hostMem{MemTotal: *m.MemTotalBytes, MemAvailable: avail, SwapTotal: *m.SwapTotalBytes,
		CommittedAS: *m.CommittedASBytes, DefaultPage: *m.HugepagesizeBytes, Pools: map[uint64]uint64{}}
	pools, _ := linux.ReadHugePools(o.FS)
	for _, p := range pools {
		if p.Node < 0 {
			h.Pools[p.PageSizeBytes] = p.Total + p.Surplus
		}
	}
	for name, dst := range map[string]*uint64{"vm.overcommit_ratio": &h.Ratio, "vm.overcommit_kbytes": &h.KBytes} {
		if *dst, err = readUint(o, name); err != nil {
			return h, err
		}
	}
	mode, err := readUint(o, "vm.overcommit_memory")
	h.Mode = int64(mode)
	return h, err
}

func readUint(o Options, name string) (uint64, error) {
	path := o.FS.ProcPath("sys", render.SysctlPath(name))
	s, err := o.Kernel.Read(path)
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s holds %q, not a number", path, s)
	}
	return v, nil
}

// hugetlb is the memory every pool takes.
func (h hostMem) hugetlb() uint64 {
	var b uint64
	for size, n := range h.Pools {
		b += size * n
	}
	return b
}

// commitLimit is the kernel's vm_commit_limit(), in 4 KiB pages as the
// kernel counts: (MemTotal - hugetlb) x ratio/100 + swap, or
// overcommit_kbytes + swap.
func (h hostMem) commitLimit() uint64 {
	var allowed uint64
	if h.KBytes > 0 {
		allowed = h.KBytes * 1024 / pageSize
	} else {
		total, huge := h.MemTotal/pageSize, h.hugetlb()/pageSize
		allowed = (total - min(huge, total)) * h.Ratio / 100
	}
	return (allowed + h.SwapTotal/pageSize) * pageSize
}

// with returns the state after a change.
func (h hostMem) with(c Change) (hostMem, error) {
	v, err := strconv.ParseUint(c.New, 10, 64)
	numeric := render.IsPool(c.Setting) || isOvercommitPair(c.Setting.Name) || c.Setting.Name == "vm.overcommit_memory"
	if numeric && err != nil {
		return h, fmt.Errorf("%q is not a number", c.New)
	}
	switch {
	case render.IsPool(c.Setting):
		old, _ := strconv.ParseUint(c.Old, 10, 64)
		pools := map[uint64]uint64{}
		for k, n := range h.Pools {
			pools[k] = n
		}
		size := poolPageSize(c, h.DefaultPage)
		pools[size] = pools[size] + v - min(old, pools[size]+v)
		h.Pools = pools
	case c.Setting.Target != finding.TargetSysctl:
	case c.Setting.Name == "vm.overcommit_memory":
		h.Mode = int64(v)
	case c.Setting.Name == "vm.overcommit_ratio":
		h.Ratio, h.KBytes = v, 0
	case c.Setting.Name == "vm.overcommit_kbytes":
		h.KBytes, h.Ratio = v, 0
	}
	return h, nil
}

// poolPageSize is the page size of a pool setting: hugepages-<N>kB in a
// /sys path, else the default huge page size.
func poolPageSize(c Change, def uint64) uint64 {
	for _, part := range strings.Split(c.Path, "/") {
		if kb, ok := strings.CutPrefix(part, "hugepages-"); ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(kb, "kB"), 10, 64); err == nil {
				return n << 10
			}
		}
	}
	return def
}

func (p Policy) reserve(memTotal uint64) uint64 {
	return max(uint64(float64(memTotal)*p.ReservePercent/100), p.ReserveMinBytes)
}

func (p Policy) headroom(memTotal uint64) uint64 {
	return uint64(float64(memTotal) * p.CommitHeadroomPercent / 100)
}

// checkSteps walks the changes in order and refuses each step that would
// leave too little RAM outside the pools, grow a pool beyond the free
// memory, or lower CommitLimit (strict overcommit) below Committed_AS plus
// the headroom.
func checkSteps(h hostMem, live []Change, pol Policy) []Refusal {
	var out []Refusal
	for _, c := range live {
		if c.Noop() {
			continue
		}
		next, err := h.with(c)
		if err != nil {
			out = append(out, Refusal{Setting: label(c), Reason: err.Error() + ".", Fix: "give a whole number."})
			continue
		}
		out = append(out, poolRefusals(h, &next, c, pol)...)
		if r, bad := commitRefusal(h, next, c, pol); bad {
			out = append(out, r)
		}
		h = next
	}
	return out
}

func label(c Change) string { return c.Setting.Name + "=" + c.New }
