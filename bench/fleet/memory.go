package main

import (
	"fmt"
	"slices"
)

// Per-backend figures for the memory plan (measured on this machine, see
// docs/performance.md): the private memory of an idle backend that read a
// table, and page tables besides the shared segment's.
const (
	backendPrivateBytes = 8 << 20
	backendBasePTEBytes = 512 << 10
)

// need is the memory a group takes at its largest number of backends.
type need struct {
	Shared, PageTables, Private uint64
}

func (n need) total() uint64 { return n.Shared + n.PageTables + n.Private }

func (n need) String() string {
	return fmt.Sprintf("shared %s + page tables %s + private %s", gib(n.Shared), gib(n.PageTables), gib(n.Private))
}

// memoryNeed estimates a group's memory: the shared segment (or the huge
// page pool holding it), and per backend its private memory and page
// tables: 8 bytes per 4 KiB page of shared memory touched (1/512) with
// huge_pages=off, 8 bytes per 2 MiB page with huge_pages=on.
func memoryNeed(g group, segment, touched uint64) need {
	n := uint64(slices.Max(g.Conns))
	perPTE := touched / 512
	if g.Huge == "on" {
		perPTE = touched / (512 * 512)
	}
	return need{Shared: segment, PageTables: n * (perPTE + backendBasePTEBytes), Private: n * backendPrivateBytes}
}
