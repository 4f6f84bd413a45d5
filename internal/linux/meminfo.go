package linux

import (
	"bytes"
	"errors"
	"io"
	"strings"
)

// Meminfo is /proc/meminfo with sizes in bytes and huge page counts in
// pages. A field is nil when its line is absent: an older kernel, a kernel
// built without the feature, or a partial copy (people paste `grep Huge
// /proc/meminfo`). Absent is unknown, never 0; in JSON it is omitted.
type Meminfo struct {
	MemTotalBytes     *uint64 `json:"mem_total_bytes,omitempty"`
	MemFreeBytes      *uint64 `json:"mem_free_bytes,omitempty"`
	MemAvailableBytes *uint64 `json:"mem_available_bytes,omitempty"` // 3.14+
	// MemAvailableEstimateBytes is set only when the kernel has no
	// MemAvailable line (before 3.14): the classic estimate, see
	// MemAvailableEstimate. It is an estimate, not the kernel's number.
	MemAvailableEstimateBytes *uint64 `json:"mem_available_estimate_bytes,omitempty"`
	BuffersBytes              *uint64 `json:"buffers_bytes,omitempty"`
	CachedBytes               *uint64 `json:"cached_bytes,omitempty"`
	SwapCachedBytes           *uint64 `json:"swap_cached_bytes,omitempty"`
	AnonPagesBytes            *uint64 `json:"anon_pages_bytes,omitempty"`
	MappedBytes               *uint64 `json:"mapped_bytes,omitempty"`
	ShmemBytes                *uint64 `json:"shmem_bytes,omitempty"`
	SlabBytes                 *uint64 `json:"slab_bytes,omitempty"`
	SReclaimableBytes         *uint64 `json:"sreclaimable_bytes,omitempty"`
	KernelStackBytes          *uint64 `json:"kernel_stack_bytes,omitempty"`
	PageTablesBytes           *uint64 `json:"page_tables_bytes,omitempty"`
	SecPageTablesBytes        *uint64 `json:"sec_page_tables_bytes,omitempty"` // 6.1+
	SwapTotalBytes            *uint64 `json:"swap_total_bytes,omitempty"`
	SwapFreeBytes             *uint64 `json:"swap_free_bytes,omitempty"`
	CommitLimitBytes          *uint64 `json:"commit_limit_bytes,omitempty"`
	CommittedASBytes          *uint64 `json:"committed_as_bytes,omitempty"`
	MlockedBytes              *uint64 `json:"mlocked_bytes,omitempty"`
	AnonHugePagesBytes        *uint64 `json:"anon_huge_pages_bytes,omitempty"`
	ShmemHugePagesBytes       *uint64 `json:"shmem_huge_pages_bytes,omitempty"` // 4.8+
	HugePagesTotal            *uint64 `json:"huge_pages_total,omitempty"`
	HugePagesFree             *uint64 `json:"huge_pages_free,omitempty"`
	HugePagesRsvd             *uint64 `json:"huge_pages_rsvd,omitempty"`
	HugePagesSurp             *uint64 `json:"huge_pages_surp,omitempty"`
	HugepagesizeBytes         *uint64 `json:"hugepagesize_bytes,omitempty"`
	HugetlbBytes              *uint64 `json:"hugetlb_bytes,omitempty"` // 4.16+: all pool sizes
}

// The classic estimates of MemAvailableEstimateBytes, as free(1) computed
// "free" before the kernel had MemAvailable: Shmem is subtracted when the
// file has it (it is in Cached but cannot be dropped); kernels before
// 2.6.32 and many partial copies have no Shmem line.
const (
	MemAvailableEstimate        = "MemFree + Buffers + Cached - Shmem"
	MemAvailableEstimateNoShmem = "MemFree + Buffers + Cached"
)

// AvailableEstimateFormula says how MemAvailableEstimateBytes was computed.
func (m Meminfo) AvailableEstimateFormula() string {
	if m.ShmemBytes == nil {
		return MemAvailableEstimateNoShmem
	}
	return MemAvailableEstimate
}

// meminfoLines ties each line dbmem reads to its field, in the kernel's
// order: one table for the parser, Missing and the tests.
var meminfoLines = []struct {
	key   string
	field func(*Meminfo) **uint64
}{
	{"MemTotal", func(m *Meminfo) **uint64 { return &m.MemTotalBytes }},
	{"MemFree", func(m *Meminfo) **uint64 { return &m.MemFreeBytes }},
	{"MemAvailable", func(m *Meminfo) **uint64 { return &m.MemAvailableBytes }},
	{"Buffers", func(m *Meminfo) **uint64 { return &m.BuffersBytes }},
	{"Cached", func(m *Meminfo) **uint64 { return &m.CachedBytes }},
	{"SwapCached", func(m *Meminfo) **uint64 { return &m.SwapCachedBytes }},
	{"AnonPages", func(m *Meminfo) **uint64 { return &m.AnonPagesBytes }},
	{"Mapped", func(m *Meminfo) **uint64 { return &m.MappedBytes }},
	{"Shmem", func(m *Meminfo) **uint64 { return &m.ShmemBytes }},
	{"Slab", func(m *Meminfo) **uint64 { return &m.SlabBytes }},
	{"SReclaimable", func(m *Meminfo) **uint64 { return &m.SReclaimableBytes }},
	{"KernelStack", func(m *Meminfo) **uint64 { return &m.KernelStackBytes }},
	{"PageTables", func(m *Meminfo) **uint64 { return &m.PageTablesBytes }},
	{"SecPageTables", func(m *Meminfo) **uint64 { return &m.SecPageTablesBytes }},
	{"SwapTotal", func(m *Meminfo) **uint64 { return &m.SwapTotalBytes }},
	{"SwapFree", func(m *Meminfo) **uint64 { return &m.SwapFreeBytes }},
	{"CommitLimit", func(m *Meminfo) **uint64 { return &m.CommitLimitBytes }},
	{"Committed_AS", func(m *Meminfo) **uint64 { return &m.CommittedASBytes }},
	{"Mlocked", func(m *Meminfo) **uint64 { return &m.MlockedBytes }},
	{"AnonHugePages", func(m *Meminfo) **uint64 { return &m.AnonHugePagesBytes }},
	{"ShmemHugePages", func(m *Meminfo) **uint64 { return &m.ShmemHugePagesBytes }},
	{"HugePages_Total", func(m *Meminfo) **uint64 { return &m.HugePagesTotal }},
	{"HugePages_Free", func(m *Meminfo) **uint64 { return &m.HugePagesFree }},
	{"HugePages_Rsvd", func(m *Meminfo) **uint64 { return &m.HugePagesRsvd }},
	{"HugePages_Surp", func(m *Meminfo) **uint64 { return &m.HugePagesSurp }},
	{"Hugepagesize", func(m *Meminfo) **uint64 { return &m.HugepagesizeBytes }},
	{"Hugetlb", func(m *Meminfo) **uint64 { return &m.HugetlbBytes }},
}

// Missing lists the lines dbmem reads that this meminfo did not have.
func (m Meminfo) Missing() []string {
	var out []string
	for _, l := range meminfoLines {
		if *l.field(&m) == nil {
			out = append(out, l.key)
		}
	}
	return out
}

// Available is MemAvailable, or the classic estimate on a kernel without
// it (estimated is then true); ok is false when neither is known.
func (m Meminfo) Available() (bytes uint64, estimated, ok bool) {
	switch {
	case m.MemAvailableBytes != nil:
		return *m.MemAvailableBytes, false, true
	case m.MemAvailableEstimateBytes != nil:
		return *m.MemAvailableEstimateBytes, true, true
	}
	return 0, false, false
}

// PageCacheBytes is the page cache as free(1) counts it: Cached + Buffers
// minus Shmem, which is in Cached but cannot be dropped. ok is false when
// a line is missing, or when Shmem exceeds Cached + Buffers (no kernel
// prints that; virtualised copies of meminfo do).
func (m Meminfo) PageCacheBytes() (uint64, bool) {
	if m.CachedBytes == nil || m.BuffersBytes == nil || m.ShmemBytes == nil {
		return 0, false
	}
	c := *m.CachedBytes + *m.BuffersBytes
	if *m.ShmemBytes > c {
		return 0, false
	}
	return c - *m.ShmemBytes, true
}

// SwapUsedBytes is SwapTotal - SwapFree; ok is false when a line is missing.
func (m Meminfo) SwapUsedBytes() (uint64, bool) {
	if m.SwapTotalBytes == nil || m.SwapFreeBytes == nil {
		return 0, false
	}
	return *m.SwapTotalBytes - min(*m.SwapFreeBytes, *m.SwapTotalBytes), true
}

// ReadMeminfo reads /proc/meminfo under fs.
func ReadMeminfo(fs FS) (Meminfo, error) {
	return readParsed(fs, fs.ProcPath("meminfo"), parseMeminfo)
}

// errNotMeminfo: the text has none of the lines dbmem reads.
var errNotMeminfo = errors.New("none of the lines of /proc/meminfo (MemTotal:, HugePages_Total:, ...) " +
	"with a number: give the file itself or lines copied from it (the output of free -m is not meminfo)")

// parseMeminfo takes any subset of meminfo's lines, as the kernel prints
// them or as people paste them: what is there is read, what is not stays
// nil. Only a text with none of them is an error.
func parseMeminfo(r io.Reader) (Meminfo, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return Meminfo{}, err
	}
	kv := kvFile{}
	eachKV(cleanPasted(b), func(key []byte, v uint64) { kv[string(key)] = v })
	var m Meminfo
	found := false
	for _, l := range meminfoLines {
		if v, ok := kv[l.key]; ok {
			*l.field(&m), found = &v, true
		}
	}
	if !found {
		return Meminfo{}, errNotMeminfo
	}
	if m.MemAvailableBytes == nil && m.MemFreeBytes != nil && m.CachedBytes != nil && m.BuffersBytes != nil {
		// Kernels before 3.14: the classic estimate, kept apart.
		c := *m.CachedBytes + *m.BuffersBytes
		if m.ShmemBytes != nil {
			c -= min(c, *m.ShmemBytes)
		}
		m.MemAvailableEstimateBytes = new(*m.MemFreeBytes + c)
	}
	return m, nil
}

// cleanPasted undoes what pasting adds around meminfo lines: markdown
// emphasis and code marks (**HugePages_Total: 400**, `...`), trailing
// comments ("Hugepagesize: 1048576 kB //1G") and blanks. The kernel's own
// file passes through unchanged.
func cleanPasted(b []byte) []byte {
	if !bytes.ContainsAny(b, "*`/#") {
		return b // the kernel's file: nothing to undo
	}
	var out bytes.Buffer
	for line := range bytes.Lines(b) {
		if i := bytes.Index(line, []byte("//")); i >= 0 {
			line = line[:i]
		}
		if i := bytes.Index(line, []byte(" #")); i >= 0 {
			line = line[:i]
		}
		out.Write(bytes.Trim(bytes.TrimSpace(line), "*`"))
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// meminfoGaps says which lines were missing, and that MemAvailable is an
// estimate when it is one.
func meminfoGaps(m Meminfo) []Gap {
	var gaps []Gap
	var miss []string
	for _, k := range m.Missing() {
		if k != "MemAvailable" || m.MemAvailableEstimateBytes == nil {
			miss = append(miss, k)
		}
	}
	if len(miss) > 0 {
		gaps = append(gaps, Gap{What: "/proc/meminfo lines " + strings.Join(miss, ", "),
			Why: "not in the file (an older kernel, a kernel without the feature, or a partial copy): unknown"})
	}
	if m.MemAvailableEstimateBytes != nil {
		gaps = append(gaps, Gap{What: "MemAvailable",
			Why: "no such line (kernel before 3.14, or a partial copy): shown as an estimate, " + m.AvailableEstimateFormula()})
	}
	return gaps
}
