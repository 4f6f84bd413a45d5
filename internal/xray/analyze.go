package xray

import (
	"sort"

	"github.com/dbmem/dbmem/internal/dblog"
)

// Measure is what /proc said of the backend just after its dump was read.
type Measure struct {
	// PssAnonBytes is Pss_Anon (exact) or, when Exact is false, RssAnon (an
	// over-estimate: pages still shared copy-on-write count in full).
	PssAnonBytes uint64 `json:"pss_anon_bytes"`
	Exact        bool   `json:"exact"`
	VmPTEBytes   uint64 `json:"vm_pte_bytes"`
	VmSwapBytes  uint64 `json:"vm_swap_bytes"`
	// JITBytes are the private pages of the JIT libraries the backend
	// loaded (libLLVM, llvmjit.so) and of the code it emitted; JITLoaded
	// is true when the libraries are mapped. JITKnown is false when the
	// pages could not be read (then JIT stays in "outside").
	JITBytes  uint64 `json:"jit_bytes"`
	JITLoaded bool   `json:"jit_loaded"`
	JITKnown  bool   `json:"jit_known"`
}

// PrivateBytes is Pss_Anon + VmPTE + VmSwap.
func (m Measure) PrivateBytes() uint64 { return m.PssAnonBytes + m.VmPTEBytes + m.VmSwapBytes }

// Part is one group's share of the private cost.
type Part struct {
	Group Group  `json:"group"`
	Bytes uint64 `json:"bytes"`
	// ContextsTotalBytes is what the group's contexts malloc'd (their
	// "total"); Bytes counts their used bytes. 0 for the parts outside.
	ContextsTotalBytes uint64 `json:"contexts_total_bytes,omitempty"`
	Contexts           int    `json:"contexts,omitempty"`
	// EstimatedBytes is the part of Bytes that comes from splitting "N more
	// child contexts" lines like their listed siblings (SplitMore).
	EstimatedBytes uint64 `json:"estimated_bytes,omitempty"`
	// Largest names the group's largest context.
	Largest string `json:"largest,omitempty"`
	Fix     string `json:"fix"`
}

// Context is one context shown, with its group.
type Context struct {
	dblog.MemoryContext
	Group Group `json:"group"`
}

// Breakdown is one backend's private cost by group. The parts add up to
// PrivateBytes, less UntouchedBytes when the contexts count more used
// bytes than the backend has anonymous memory.
type Breakdown struct {
	PrivateBytes uint64 `json:"private_bytes"`
	Parts        []Part `json:"parts"`
	// Largest are the largest contexts by total bytes.
	Largest []Context `json:"largest"`
	// Reconcile compares the dump with Pss_Anon: which figure is compared
	// and how they stand.
	Reconcile Reconcile `json:"reconcile"`
	// Dominant is the largest part.
	Dominant Group `json:"dominant"`
}

// Reconcile says how the dump's figures stand against the kernel's.
type Reconcile struct {
	// ContextsUsedBytes and ContextsTotalBytes are the dump's sums; the
	// groups count used bytes (chunks handed out), total is what the
	// contexts malloc'd, some of it never touched.
	ContextsUsedBytes  uint64 `json:"contexts_used_bytes"`
	ContextsTotalBytes uint64 `json:"contexts_total_bytes"`
	// AnonBytes is Pss_Anon + VmSwap: what the contexts can occupy.
	AnonBytes uint64 `json:"anon_bytes"`
	// UntouchedBytes is how much the used bytes (and JIT pages) exceed
	// AnonBytes: counted by PostgreSQL, never given pages by the kernel (or
	// freed between the dump and the measure). Not attributed.
	UntouchedBytes uint64 `json:"untouched_bytes,omitempty"`
	// UsedRatio is ContextsUsedBytes / AnonBytes; TotalRatio likewise.
	UsedRatio  float64 `json:"used_ratio"`
	TotalRatio float64 `json:"total_ratio"`
}

// Analyze splits a backend's private cost by group: the contexts' used
// bytes by Classify, the JIT libraries' pages, page tables, and the rest
// of its anonymous memory as outside the contexts. top is how many of the
// largest contexts to keep.
func Analyze(d dblog.ContextDump, m Measure, top int) Breakdown {
	groups := Classify(d.Contexts)
	b := Breakdown{PrivateBytes: m.PrivateBytes()}
	byGroup := map[Group]*Part{}
	for _, g := range GroupOrder {
		byGroup[g] = &Part{Group: g, Fix: g.Fix()}
	}
	addContexts(byGroup, d.Contexts, groups)
	b.Reconcile = reconcile(d, m)
	if m.JITKnown {
		byGroup[GroupJIT].Bytes += m.JITBytes
	}
	inside := b.Reconcile.ContextsUsedBytes + jitPages(m)
	if anon := b.Reconcile.AnonBytes; anon >= inside {
		byGroup[GroupOutside].Bytes = anon - inside
	} else {
		b.Reconcile.UntouchedBytes = inside - anon
	}
	byGroup[GroupPageTables].Bytes = m.VmPTEBytes
	for _, g := range GroupOrder {
		b.Parts = append(b.Parts, *byGroup[g])
	}
	b.Dominant = dominant(b.Parts)
	b.Largest = largest(d.Contexts, groups, top)
	return b
}

// addContexts adds each context's used and total bytes to its group's
// part; "more child contexts" lines are split by SplitMore.
func addContexts(byGroup map[Group]*Part, cs []dblog.MemoryContext, groups []Group) {
	more := SplitMore(cs, groups)
	largestOf := map[Group]uint64{}
	for i, c := range cs {
		if shares, ok := more[i]; ok {
			for _, sh := range shares {
				p := byGroup[sh.Group]
				used := uint64(float64(c.UsedBytes) * sh.Fraction)
				p.Bytes += used
				p.EstimatedBytes += used
				p.ContextsTotalBytes += uint64(float64(c.TotalBytes) * sh.Fraction)
				p.Contexts += int(float64(c.MoreChildren)*sh.Fraction + 0.5)
			}
			continue
		}
		p := byGroup[groups[i]]
		p.Bytes += c.UsedBytes
		p.ContextsTotalBytes += c.TotalBytes
		p.Contexts++
		if c.TotalBytes > largestOf[p.Group] {
			largestOf[p.Group], p.Largest = c.TotalBytes, c.Name
		}
	}
}

func jitPages(m Measure) uint64 {
	if m.JITKnown {
		return m.JITBytes
	}
	return 0
}

func reconcile(d dblog.ContextDump, m Measure) Reconcile {
	total, _, used := d.Sums()
	r := Reconcile{ContextsUsedBytes: used, ContextsTotalBytes: total, AnonBytes: m.PssAnonBytes + m.VmSwapBytes}
	if r.AnonBytes > 0 {
		r.UsedRatio = float64(used) / float64(r.AnonBytes)
		r.TotalRatio = float64(total) / float64(r.AnonBytes)
	}
	return r
}

// dominant is the largest part (page tables included: a backend that
// touched a large shared_buffers through 4 KiB pages is mostly those).
func dominant(parts []Part) Group {
	var best Part
	for _, p := range parts {
		if p.Bytes > best.Bytes {
			best = p
		}
	}
	return best.Group
}

// largest returns the n contexts with the most total bytes ("more child
// contexts" lines are sums, not contexts, and are left out).
func largest(cs []dblog.MemoryContext, groups []Group, n int) []Context {
	var out []Context
	for i, c := range cs {
		if c.MoreChildren == 0 {
			out = append(out, Context{MemoryContext: c, Group: groups[i]})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].TotalBytes > out[j].TotalBytes })
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// Part returns the bytes of group g (0 when the breakdown has none).
func (b Breakdown) Part(g Group) uint64 {
	for _, p := range b.Parts {
		if p.Group == g {
			return p.Bytes
		}
	}
	return 0
}
