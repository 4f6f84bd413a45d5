package audit

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// The Okabe-Ito palette (Okabe and Ito, 2008): distinct for deuteranopes,
// protanopes and tritanopes alike.
const (
	Orange    = "#E69F00"
	SkyBlue   = "#56B4E9"
	Green     = "#009E73"
	Yellow    = "#F0E442"
	Blue      = "#0072B2"
	Vermilion = "#D55E00"
	Purple    = "#CC79A7"
	Black     = "#000000"
)

// Part is one share of the host's RAM.
type Part struct {
	Name string
	// Bytes is nil when a term of it was not read: it is then shown as
	// unknown and left out of the chart, never drawn as 0.
	Bytes   *uint64
	Formula string
	Color   string
}

// RAM splits MemTotal into where it goes: shared memory, the huge page
// pools, PostgreSQL's private memory by role, page tables, the page
// cache, other programs' anonymous memory, the kernel and the rest, and
// free memory (/proc/meminfo and the processes' Pss_Anon).
func RAM(s *snapshot.Snapshot) []Part {
	m := s.Host.Meminfo
	roles, known := privateByRole(s)
	var parts []Part
	parts = append(parts, Part{"shared memory", m.ShmemBytes,
		"Shmem (/proc/meminfo): shared memory in base and transparent huge pages as touched (PostgreSQL's segments, tmpfs, SysV)", Blue})
	pools, poolText := hugePools(s.Host)
	parts = append(parts, Part{"huge page pools", pools, poolText, Vermilion})
	parts = append(parts, roles...)
	parts = append(parts, Part{"page tables", add(m.PageTablesBytes, units.Deref(m.SecPageTablesBytes)),
		"PageTables + SecPageTables (/proc/meminfo): kernel memory outside every RSS", Purple})
	cache, ok := m.PageCacheBytes()
	parts = append(parts, Part{"page cache", units.Opt(cache, ok), "Cached + Buffers - Shmem (/proc/meminfo)", SkyBlue})
	parts = append(parts, otherPrograms(m, known))
	parts = append(parts, kernelRest(m, pools, cache, ok))
	parts = append(parts, Part{"free", m.MemFreeBytes, "MemFree (/proc/meminfo)", Yellow})
	return parts
}

// privateByRole adds up PostgreSQL's private memory in RAM (Pss_Anon, or
// RssAnon where it was not measured) per role over every instance, and
// returns the sum of what was read.
func privateByRole(s *snapshot.Snapshot) ([]Part, *uint64) {
	type acc struct {
		bytes        uint64
		n, read, est int
		role         string
	}
	by := map[string]*acc{}
	var total uint64
	complete := true
	for _, in := range s.Postgres {
		for _, p := range in.Processes {
			a := by[string(p.Role)]
			if a == nil {
				a = &acc{role: string(p.Role)}
				by[a.role] = a
			}
			a.n++
			v, exact, ok := anonInRAM(p.Process)
			if !ok {
				complete = false
				continue
			}
			a.bytes, a.read, total = a.bytes+v, a.read+1, total+v
			if !exact {
				a.est++
			}
		}
	}
	var out []Part
	for _, a := range by {
		f := fmt.Sprintf("Pss_Anon of %s", processes(a.read))
		if a.est > 0 {
			f += fmt.Sprintf(" (RssAnon for %d: an over-estimate)", a.est)
		}
		if a.read < a.n {
			f += fmt.Sprintf("; %d of %d processes not read: at least this much", a.n-a.read, a.n)
		}
		b := a.bytes
		out = append(out, Part{"private: " + a.role, &b, f, Green})
	}
	slices.SortFunc(out, func(x, y Part) int { return cmp.Or(cmp.Compare(*y.Bytes, *x.Bytes), cmp.Compare(x.Name, y.Name)) })
	if !complete {
		return out, nil
	}
	return out, &total
}

// anonInRAM is a process's private memory in RAM: its private cost
// without page tables (counted apart) and swap (not in RAM).
func anonInRAM(p linux.Process) (uint64, bool, bool) {
	switch {
	case p.Rollup != nil && p.Rollup.PssAnonBytes != nil:
		return *p.Rollup.PssAnonBytes, true, true
	case p.Private != nil:
		return p.Private.PssAnonBytes, true, true
	case p.Status.RssAnonBytes != nil:
		return *p.Status.RssAnonBytes, false, true
	}
	return 0, false, false
}

// hugePools is the RAM the host-wide huge page pools hold.
func hugePools(h linux.Host) (*uint64, string) {
	var sum, inUse uint64
	var parts string
	n := 0
	for _, p := range h.HugePools {
		if p.Node >= 0 {
			continue
		}
		n++
		sum += p.Bytes()
		if u, ok := p.InUse(); ok {
			inUse += u * p.PageSizeBytes
		}
		if parts != "" {
			parts += " + "
		}
		parts += fmt.Sprintf("%d x %s", p.Total, units.Bytes(p.PageSizeBytes))
	}
	if n == 0 {
		return nil, "no huge page pool was read (/sys/kernel/mm/hugepages)"
	}
	return &sum, fmt.Sprintf("%s pages (/sys/kernel/mm/hugepages), %s of it in use; taken from RAM whether used or not", parts, units.Bytes(inUse))
}

// otherPrograms is the anonymous memory of every other process:
// AnonPages less PostgreSQL's private memory.
func otherPrograms(m linux.Meminfo, pg *uint64) Part {
	p := Part{Name: "other programs", Color: Orange,
		Formula: "AnonPages (/proc/meminfo) - PostgreSQL's private memory (above): MySQL/MariaDB, poolers, every other process"}
	switch {
	case m.AnonPagesBytes == nil:
	case pg == nil:
		p.Formula += "; unknown: a PostgreSQL process's memory was not read"
	case *pg > *m.AnonPagesBytes:
		p.Formula += "; unknown: Pss_Anon adds up to more than AnonPages (read at different instants)"
	default:
		v := *m.AnonPagesBytes - *pg
		p.Bytes = &v
	}
	return p
}

// kernelRest is what MemTotal holds beside everything above and MemFree:
// slab, kernel stacks, vmalloc, drivers, swap cache.
func kernelRest(m linux.Meminfo, pools *uint64, cache uint64, cacheOK bool) Part {
	p := Part{Name: "kernel and the rest", Color: Black,
		Formula: "MemTotal - MemFree - Shmem - huge page pools - AnonPages - page tables - page cache: slab, kernel stacks, vmalloc, drivers"}
	terms := []*uint64{m.MemFreeBytes, m.ShmemBytes, pools, m.AnonPagesBytes, m.PageTablesBytes, units.Opt(cache, cacheOK)}
	used := uint64(0)
	for _, t := range terms {
		if t == nil {
			return p
		}
		used += *t
	}
	used += units.Deref(m.SecPageTablesBytes)
	if m.MemTotalBytes != nil && *m.MemTotalBytes >= used {
		v := *m.MemTotalBytes - used
		p.Bytes = &v
	}
	return p
}

// processes is "1 PostgreSQL process" or "n PostgreSQL processes".
func processes(n int) string {
	if n == 1 {
		return "1 PostgreSQL process"
	}
	return fmt.Sprintf("%d PostgreSQL processes", n)
}

func add(a *uint64, b uint64) *uint64 {
	if a == nil {
		return nil
	}
	v := *a + b
	return &v
}
