package pagecost

// span is a run of consecutive mappings that the fast path reads the same
// way, not interrupted by a skipped mapping: one PAGEMAP_SCAN call covers it.
type span struct {
	start, end uint64
	// trustExclusive is false for mappings that may be hugetlb.
	trustExclusive bool
	// first and last index the span's mappings in the maps it came from,
	// for reading pagemap mapping by mapping.
	first, last int
}

// spanPlan is what privateSpans decided for one process.
type spanPlan struct {
	spans []span
	// skippedBytes is the size of the shared, hugetlb and special mappings
	// left out (never anonymous memory).
	skippedBytes uint64
	// codeDeferred: text mappings were left out (see isCode).
	codeDeferred bool
}

// privateSpans groups the mappings to read into spans, appended to
// spans[:0], and adds up the size of the skipped ones. Without withCode,
// text mappings larger than smallTextBytes are left out too.
func privateSpans(maps []vma, withCode bool, spans []span) spanPlan {
	var p spanPlan
	spans = spans[:0]
	open := false
	for i, m := range maps {
		if !m.mayHoldAnon() {
			p.skippedBytes += m.end - m.start
			open = false
			continue
		}
		if m.deferred() && !withCode {
			p.codeDeferred = true
			open = false
			continue
		}
		trust := m.act == vmaRead
		if k := len(spans) - 1; open && spans[k].trustExclusive == trust {
			spans[k].end, spans[k].last = m.end, i
			continue
		}
		spans = append(spans, span{start: m.start, end: m.end, trustExclusive: trust, first: i, last: i})
		open = true
	}
	p.spans = spans
	return p
}

// mergeRanges joins address ranges (sorted, as PAGEMAP_SCAN returns them)
// separated by at most maxGap bytes: reading a few unneeded pagemap
// entries costs less than another pread.
func mergeRanges(rs [][2]uint64, maxGap uint64) [][2]uint64 {
	out := rs[:0]
	for _, r := range rs {
		if k := len(out) - 1; k >= 0 && r[0] >= out[k][1] && r[0]-out[k][1] <= maxGap {
			out[k][1] = max(out[k][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return out
}
