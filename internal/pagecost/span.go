package pagecost

// span is a run of consecutive mappings that the fast path reads the same
// way, not interrupted by a skipped mapping: one PAGEMAP_SCAN call covers it.
type span struct {
	start, end uint64
	// trustExclusive is false for mappings that may be hugetlb.
	trustExclusive bool
	// vmas are the mappings in the span, for reading pagemap directly.
	vmas []vma
}

// privateSpans groups the mappings to read into spans and adds up the size
// of the skipped ones.
func privateSpans(maps []vma) (spans []span, skippedBytes uint64) {
	open := false
	for _, m := range maps {
		if m.act != vmaRead && m.act != vmaReadCheck {
			skippedBytes += m.end - m.start
			open = false
			continue
		}
		trust := m.act == vmaRead
		if k := len(spans) - 1; open && spans[k].trustExclusive == trust {
			spans[k].end = m.end
			spans[k].vmas = append(spans[k].vmas, m)
			continue
		}
		spans = append(spans, span{start: m.start, end: m.end, trustExclusive: trust, vmas: []vma{m}})
		open = true
	}
	return spans, skippedBytes
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
