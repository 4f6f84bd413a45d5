package xray

// Figures are what the X-rays of an instance tell a memory budget
// (internal/budget): what JIT costs a backend that compiled, and what a
// backend pays whatever it does. Each is 0 with its count 0 when no
// X-rayed backend showed it: unknown, not zero.
type Figures struct {
	// JITBytes is the largest JIT part of the backends that loaded JIT
	// (libLLVM's private pages and the code it emitted; LLVM's heap is
	// not separable and stays outside), JITBackends how many.
	JITBytes    uint64 `json:"jit_bytes"`
	JITBackends int    `json:"jit_backends"`
	// BaselineBytes is the smallest "other contexts + outside memory
	// contexts" of the backends X-rayed: PostgreSQL's fixed contexts and
	// the libraries' and malloc's memory every backend has (page tables,
	// which depend on the shared memory touched, are not in it).
	BaselineBytes uint64 `json:"baseline_bytes"`
	Backends      int    `json:"backends"`
}

// Summarize gathers Figures over the backends of r that were X-rayed.
func Summarize(r Result) Figures {
	var f Figures
	for _, b := range r.Backends {
		if b.Breakdown == nil {
			continue
		}
		base := b.Breakdown.Part(GroupOther) + b.Breakdown.Part(GroupOutside)
		if f.Backends == 0 || base < f.BaselineBytes {
			f.BaselineBytes = base
		}
		f.Backends++
		if b.Measure.JITLoaded && b.Measure.JITKnown {
			f.JITBackends++
			f.JITBytes = max(f.JITBytes, b.Breakdown.Part(GroupJIT))
		}
	}
	return f
}
