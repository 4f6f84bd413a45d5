package enginemem

import (
	"cmp"
	"slices"
)

// Scope says how a worst-case line is allocated.
type Scope string

// Scopes. A line without one is counted once as it stands (PostgreSQL's
// terms are already multiplied out).
const (
	// Global is allocated once per server, in private memory.
	Global Scope = "global"
	// InHugePages is allocated once, in huge pages: shared, out of
	// Committed_AS and never swapped.
	InHugePages Scope = "huge_pages"
	// PerConnection is what one connection may take: counted
	// MaxConnections times in a line of its own, never summed as it is.
	PerConnection Scope = "per_connection"
)

// Line is one term of a worst case, with the arithmetic that produced it.
type Line struct {
	Name    string `json:"name"`
	Formula string `json:"formula"`
	Bytes   uint64 `json:"bytes"`
	Scope   Scope  `json:"scope,omitempty"`
}

// WorstCase is the memory an instance can take when every connection runs
// its most memory-hungry query at once. Nothing in PostgreSQL or MySQL
// caps it.
type WorstCase struct {
	Lines []Line `json:"lines"`
	// PerConnection are the terms of one connection (MySQL's per-thread
	// buffers), counted MaxConnections times in Lines.
	PerConnection  []Line `json:"per_connection,omitempty"`
	MaxConnections int    `json:"max_connections,omitempty"`
	// Unmeasured names terms that could not be measured: their lines hold
	// 0 and say so; a reader shows them as unknown, never as 0.
	Unmeasured []string `json:"unmeasured,omitempty"`
	// PrivateBytes is every line but shared memory and page tables: what
	// counts in Committed_AS.
	PrivateBytes    uint64 `json:"private_bytes"`
	PageTablesBytes uint64 `json:"page_tables_bytes"`
	SharedBytes     uint64 `json:"shared_bytes"`
	// TotalBytes is the sum of the lines computed: a lower bound when
	// lines were skipped.
	TotalBytes uint64 `json:"total_bytes"`
	// Skipped are the lines left out because an input was not read.
	Skipped []SkippedLine `json:"skipped,omitempty"`
}

// SkippedLine is a worst-case line that was not computed, and the inputs
// it lacked.
type SkippedLine struct {
	Name    string   `json:"name"`
	Missing []string `json:"missing"`
}

// Known says whether a part of the worst case was computed whole: the
// private lines ("private"), "page tables" or "shared memory".
func (w WorstCase) Known(part string) bool {
	for _, l := range w.Skipped {
		private := l.Name != "page tables" && l.Name != "shared memory"
		if l.Name == part || (part == "private" && private) {
			return false
		}
	}
	return true
}

// Sum adds the lines of the scopes given (Lines, or PerConnection for
// that scope).
func (w WorstCase) Sum(scopes ...Scope) uint64 {
	var t uint64
	for _, s := range scopes {
		ls := w.Lines
		if s == PerConnection {
			ls = w.PerConnection
		}
		for _, l := range ls {
			if l.Scope == s {
				t += l.Bytes
			}
		}
	}
	return t
}

// Line returns the line of that name.
func (w WorstCase) Line(name string) (Line, bool) {
	for _, l := range w.Lines {
		if l.Name == name {
			return l, true
		}
	}
	return Line{}, false
}

// Measured reports whether the term was measured (or needs no measure).
func (w WorstCase) Measured(term string) bool { return !slices.Contains(w.Unmeasured, term) }

// PteBytes is the size of one page table entry (x86-64, arm64).
const PteBytes = 8

// PageTableBytes is what processes mapping shared bytes in pages of
// pageSize (0: 4 KiB) pay in page tables: 8 bytes per page each.
func PageTableBytes(processes int, shared, pageSize uint64) uint64 {
	pageSize = cmp.Or(pageSize, 4096)
	return uint64(processes) * (shared/pageSize + min(shared%pageSize, 1)) * PteBytes
}
