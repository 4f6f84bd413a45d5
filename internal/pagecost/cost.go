package pagecost

import (
	"errors"
	"fmt"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// Method chooses how Pss_Anon is obtained.
type Method int

const (
	// MethodFast reads pagemap for private ranges and kpagecount/kpageflags
	// (root); it falls back to MethodSmaps when it cannot.
	MethodFast Method = iota
	// MethodSmaps reads smaps_rollup: exact, cost grows with page tables.
	MethodSmaps
	// MethodStatus reads status only: RssAnon instead of Pss_Anon.
	MethodStatus
)

var methodNames = [...]string{MethodFast: "fast", MethodSmaps: "smaps", MethodStatus: "status"}

func (m Method) String() string {
	if m >= 0 && int(m) < len(methodNames) {
		return methodNames[m]
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// MarshalText writes the method's name ("fast") in JSON.
func (m Method) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// ParseMethod parses "fast", "smaps" or "status".
func ParseMethod(s string) (Method, error) {
	for m, name := range methodNames {
		if s == name {
			return Method(m), nil
		}
	}
	return 0, fmt.Errorf("unknown method %q: want fast, smaps or status", s)
}

// Cost is one process's private memory cost.
type Cost struct {
	PID int `json:"pid"`
	// Method is the method that produced the numbers: MethodSmaps when
	// MethodFast fell back (Fallback says why).
	Method Method `json:"method"`
	// PssAnonBytes is smaps_rollup's Pss_Anon (fast, smaps); 0 for status.
	PssAnonBytes uint64 `json:"pss_anon_bytes"`
	// The status figures, nil when status lacks the line (RssAnon before
	// 4.5, or an unparseable value).
	RssAnonBytes *uint64 `json:"rss_anon_bytes,omitempty"`
	VmPTEBytes   *uint64 `json:"vm_pte_bytes,omitempty"`
	VmSwapBytes  *uint64 `json:"vm_swap_bytes,omitempty"`
	// Rollup holds all of smaps_rollup when it was read (MethodSmaps, or
	// MethodFast falling back to it).
	Rollup *linux.SmapsRollup `json:"smaps_rollup,omitempty"`
	// Fallback is set when a faster method was asked for and not possible.
	Fallback *FallbackError `json:"-"`
	// Scan describes the fast path's work (zero for other methods).
	Scan ScanStats `json:"scan"`
	// Elapsed is the time spent reading this process's files (for the fast
	// path, without the shared kpagecount pass).
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ScanStats tells what the fast path read and skipped for one process.
type ScanStats struct {
	// PagemapEntries is the number of 8-byte pagemap entries read.
	PagemapEntries uint64 `json:"pagemap_entries"`
	// SkippedSharedBytes is the size of the MAP_SHARED and hugetlb mappings
	// not read (a database's shared memory).
	SkippedSharedBytes uint64 `json:"skipped_shared_bytes"`
	// ExclusivePages were anonymous pages mapped once, counted in full.
	ExclusivePages uint64 `json:"exclusive_pages"`
	// LookedUpPages needed /proc/kpagecount (shared copy-on-write pages,
	// KSM, the zero page, pages of mappings that may be hugetlb).
	LookedUpPages uint64 `json:"looked_up_pages"`
	// TextRead: the process's program and library text was read too,
	// because the anonymous pages found elsewhere fell short of RssAnon
	// (breakpoints, text relocations, or the process changed meanwhile).
	TextRead bool `json:"text_read,omitempty"`
	// SiblingLayout: the process's own maps were not read; it was read
	// along the layout of a sibling (same parent, same program: backends of
	// one postmaster), and its anonymous pages added up to its RssAnon.
	SiblingLayout bool `json:"sibling_layout,omitempty"`
}

// Exact reports whether PssAnonBytes is Pss_Anon (fast or smaps), as opposed
// to the RssAnon stand-in of the status method.
func (c Cost) Exact() bool { return c.Method != MethodStatus }

// AnonBytes is Pss_Anon, or RssAnon for the status method; ok is false
// when RssAnon is unknown.
func (c Cost) AnonBytes() (uint64, bool) {
	if c.Exact() {
		return c.PssAnonBytes, true
	}
	if c.RssAnonBytes == nil {
		return 0, false
	}
	return *c.RssAnonBytes, true
}

// PrivateBytes is what the process costs beyond shared memory:
// Pss_Anon + VmPTE + VmSwap (RssAnon instead of Pss_Anon for MethodStatus,
// an over-estimate); ok is false when a term is unknown.
func (c Cost) PrivateBytes() (uint64, bool) {
	a, ok := c.AnonBytes()
	if !ok || c.VmPTEBytes == nil || c.VmSwapBytes == nil {
		return 0, false
	}
	return a + *c.VmPTEBytes + *c.VmSwapBytes, true
}

// Skipped is a process that was not measured.
type Skipped struct {
	PID int
	// Err wraps ErrExited or ErrNoUserMemory (normal during a scan: callers
	// usually ignore those), or a permission or read error naming the file.
	Err error
}

// ErrExited means the process exited while it was being read.
var ErrExited = errors.New("process exited")

// ErrNoUserMemory means the process has no user address space (a kernel
// thread or a zombie).
var ErrNoUserMemory = errors.New("no user memory (kernel thread or zombie)")
