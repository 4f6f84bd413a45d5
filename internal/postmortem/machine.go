package postmortem

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/oomlog"
	"github.com/dbmem/dbmem/internal/units"
)

// Machine is the Mem-Info block of a report: what the whole machine held
// when the OOM killer ran. Counters the block did not print are null.
type Machine struct {
	RAMBytes *uint64 `json:"ram_bytes"`
	// PrivateAnonBytes is the anon LRU minus shmem: memory processes own.
	PrivateAnonBytes *uint64 `json:"private_anon_bytes"`
	// ShmemBytes is shared memory in base pages (tmpfs, SysV, POSIX, shared
	// anonymous mappings such as PostgreSQL's shared_buffers without huge pages).
	ShmemBytes             *uint64 `json:"shmem_bytes"`
	FileBytes              *uint64 `json:"file_bytes"`
	PagetablesBytes        *uint64 `json:"pagetables_bytes"`
	SlabBytes              *uint64 `json:"slab_bytes"`
	SlabUnreclaimableBytes *uint64 `json:"slab_unreclaimable_bytes"`
	FreeBytes              *uint64 `json:"free_bytes"`
	SwapTotalBytes         *uint64 `json:"swap_total_bytes"`
	SwapFreeBytes          *uint64 `json:"swap_free_bytes"`
	// HugePoolBytes is the huge page pools (all nodes and sizes) and
	// HugeFreeBytes their unused part; HugePools the lines as printed.
	HugePoolBytes *uint64           `json:"huge_pool_bytes"`
	HugeFreeBytes *uint64           `json:"huge_free_bytes"`
	HugePools     []oomlog.HugePool `json:"huge_pools,omitempty"`
	// BasisBytes is what shares are computed against: RAM when printed,
	// else the sum of what the block accounts for (Basis says which).
	BasisBytes *uint64 `json:"basis_bytes"`
	Basis      string  `json:"basis,omitempty"`
	// Dominant lists what took an outsized share: "page tables", "huge
	// page pool", "shared memory"; the headline explains the first.
	Dominant []string `json:"dominant,omitempty"`
}

// Thresholds of "dominating the machine". Page tables normally take well
// under 1% of RAM: 2% and 256 MiB means many processes map a big shared
// memory with 4 KiB pages. A huge page pool is taken away from everything
// else: a quarter of RAM with a quarter of it unused, or three quarters in
// any case. Shared memory in base pages over 30% of RAM is counted in the
// RSS of every process that touches it.
const (
	pagetablesShare = 0.02
	pagetablesMin   = 256 << 20
	hugePoolShare   = 0.25
	hugeFreeShare   = 0.25
	hugePoolMax     = 0.75
	shmemShare      = 0.30
)

// machineOf summarises a Mem-Info block; nil without one.
func machineOf(m *oomlog.MemInfo) *Machine {
	if m == nil || (m.AnonLRUBytes == nil && m.FileLRUBytes == nil && m.ShmemBytes == nil && m.PagetablesBytes == nil &&
		m.SlabBytes == nil && m.FreeBytes == nil && m.SwapFreeBytes == nil && m.SwapTotalBytes == nil && m.RAMBytes == nil &&
		len(m.HugePools) == 0) {
		return nil
	}
	x := &Machine{RAMBytes: m.RAMBytes, ShmemBytes: m.ShmemBytes, FileBytes: m.FileLRUBytes, PagetablesBytes: m.PagetablesBytes,
		SlabBytes: m.SlabBytes, SlabUnreclaimableBytes: m.SlabUnreclaimableBytes, FreeBytes: m.FreeBytes,
		SwapTotalBytes: m.SwapTotalBytes, SwapFreeBytes: m.SwapFreeBytes, HugePools: m.HugePools}
	if v, ok := m.PrivateAnonBytes(); ok {
		x.PrivateAnonBytes = &v
	}
	if total, free, ok := m.HugePoolBytes(); ok {
		x.HugePoolBytes, x.HugeFreeBytes = &total, &free
	}
	x.setBasis(m)
	x.Dominant = dominant(x)
	return x
}

// setBasis picks RAM, or the sum of the counters when RAM was not printed
// (then only if anon, file, shmem and free are all known).
func (x *Machine) setBasis(m *oomlog.MemInfo) {
	if x.RAMBytes != nil {
		x.BasisBytes, x.Basis = x.RAMBytes, "RAM"
		return
	}
	if m.AnonLRUBytes == nil || m.FileLRUBytes == nil || m.FreeBytes == nil {
		return
	}
	sum := *m.AnonLRUBytes + *m.FileLRUBytes + *m.FreeBytes + units.Deref(m.SlabBytes) + units.Deref(m.PagetablesBytes) +
		units.Deref(m.UnevictableBytes) + units.Deref(x.HugePoolBytes)
	x.BasisBytes, x.Basis = &sum, "the memory the report accounts for"
}

// share is part/basis; ok is false when either is unknown.
func (x *Machine) share(part *uint64) (float64, bool) {
	if part == nil || x.BasisBytes == nil || *x.BasisBytes == 0 {
		return 0, false
	}
	return float64(*part) / float64(*x.BasisBytes), true
}

// dominant lists the classes over their thresholds, largest share first.
func dominant(x *Machine) []string {
	var out []string
	if s, ok := x.share(x.PagetablesBytes); ok && s >= pagetablesShare && *x.PagetablesBytes >= pagetablesMin {
		out = append(out, "page tables")
	}
	if s, ok := x.share(x.HugePoolBytes); ok && (s >= hugePoolMax ||
		(s >= hugePoolShare && float64(*x.HugeFreeBytes) >= hugeFreeShare*float64(*x.HugePoolBytes))) {
		out = append(out, "huge page pool")
	}
	if s, ok := x.share(x.ShmemBytes); ok && s >= shmemShare {
		out = append(out, "shared memory")
	}
	return out
}

// headline states the machine's own story when its state shows one.
func headline(x *Machine) string {
	if x == nil || len(x.Dominant) == 0 {
		return ""
	}
	switch x.Dominant[0] {
	case "page tables":
		return pagetablesHeadline(x)
	case "huge page pool":
		return hugePoolHeadline(x)
	}
	return shmemHeadline(x)
}

func pct(x *Machine, part *uint64) string {
	s, _ := x.share(part)
	return fmt.Sprintf("%.1f%% of %s", 100*s, basisName(x))
}

func basisName(x *Machine) string {
	if x.Basis == "RAM" {
		return "RAM"
	}
	return "the memory the report accounts for"
}

func pagetablesHeadline(x *Machine) string {
	h := fmt.Sprintf("Page tables took %s (%s) when the OOM killer ran", units.Bytes(*x.PagetablesBytes), pct(x, x.PagetablesBytes))
	if x.ShmemBytes != nil {
		h += fmt.Sprintf(", with %s of shared memory in 4 KiB pages", units.Bytes(*x.ShmemBytes))
	}
	return h + ": every process that maps a big shared memory (shared_buffers, an SGA) with 4 KiB pages needs its own " +
		"page tables for it, 8 bytes per 4 KiB page, so many connections multiply them. Fix: put the shared memory in huge " +
		"pages (PostgreSQL huge_pages = on with vm.nr_hugepages from `dbmem plan`; Oracle use_large_pages) — 512 times fewer " +
		"page table entries — and use fewer, longer-lived connections (a pooler)."
}

func hugePoolHeadline(x *Machine) string {
	h := fmt.Sprintf("The huge page pool held %s (%s), of which %s unused", units.Bytes(*x.HugePoolBytes), pct(x, x.HugePoolBytes),
		units.Bytes(*x.HugeFreeBytes))
	return h + ": huge pages are set aside at boot or by vm.nr_hugepages and nothing else can use them, so the rest of the " +
		"machine ran out with that memory idle. Fix: size vm.nr_hugepages to what the databases map (PostgreSQL: SHOW " +
		"shared_memory_size_in_huge_pages; `dbmem plan` computes it), and make sure they use it (huge_pages = on) — or shrink the pool."
}

func shmemHeadline(x *Machine) string {
	h := fmt.Sprintf("Shared memory in 4 KiB pages took %s (%s) when the OOM killer ran", units.Bytes(*x.ShmemBytes), pct(x, x.ShmemBytes))
	return h + ": it is counted in the RSS of every process that touched it, so the OOM killer picks a process that owns " +
		"little of it, and killing it gives none of it back. Fix: put the database's shared memory in huge pages (not counted " +
		"in RSS, and needing 512 times fewer page table entries), a smaller shared_buffers / buffer pool so the whole fits, " +
		"or look for tmpfs (/dev/shm) filling up."
}
