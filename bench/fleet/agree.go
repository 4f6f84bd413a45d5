package main

// agreement compares the numbers of the readers, per backend.
type agreement struct {
	// Pagemap and Fast compare dbmem's pagemap path and its fast method
	// with smaps_rollup's Pss_Anon, round by round.
	Pagemap pairStats `json:"pagemap_vs_smaps"`
	Fast    pairStats `json:"fast_vs_smaps"`
	// FastMethods counts how the fast method measured the backends (last
	// run): "fast" (pagemap) or "smaps" (smaps_rollup was cheaper).
	FastMethods map[string]int `json:"fast_methods"`
	// Medians over the backends (last run) of each reader's figures, bytes.
	Medians map[string]uint64 `json:"medians"`
}

// pairStats: Compared (run, backend) pairs measured by both readers in the
// same round, how many gave the same Pss_Anon in kB, the largest relative
// difference.
type pairStats struct {
	Compared int     `json:"compared"`
	EqualKB  int     `json:"equal_kb"`
	MaxRel   float64 `json:"max_rel"`
}

// agree compares the fast paths with smaps_rollup run by run, and collects
// the median of every reader's per-backend figure.
func agree(tools []toolRun) agreement {
	a := agreement{Medians: map[string]uint64{}, FastMethods: map[string]int{}}
	byName := map[string]*toolRun{}
	for i := range tools {
		byName[tools[i].Tool] = &tools[i]
	}
	a.Pagemap = comparePair(byName[toolPagemap.Name], byName[toolSmaps.Name])
	a.Fast = comparePair(byName[toolFast.Name], byName[toolSmaps.Name])
	if t := byName[toolFast.Name]; t != nil && len(t.Values) > 0 {
		for _, v := range t.Values[len(t.Values)-1] {
			a.FastMethods[v.Method]++
		}
	}
	for _, m := range medianDefs {
		if t := byName[m.tool]; t != nil && len(t.Values) > 0 {
			a.Medians[m.key] = medianOf(t.Values[len(t.Values)-1], m.f)
		}
	}
	return a
}

var medianDefs = []struct {
	key  string
	tool string
	f    func(procValue) uint64
}{
	{"fast Pss_Anon", toolFast.Name, func(v procValue) uint64 { return v.PssAnon }},
	{"fast private", toolFast.Name, private},
	{"smaps private", toolSmaps.Name, private},
	{"status private", toolStatus.Name, private},
	{"smem USS", toolSmem.Name, private},
	{"smem PSS", toolSmem.Name, func(v procValue) uint64 { return v.Pss }},
	{"ps_mem Private", toolPsmem.Name, private},
	{"ps_mem RAM used", toolPsmem.Name, func(v procValue) uint64 { return v.Pss }},
}

// comparePair compares t with ref (smaps_rollup) in every round both ran.
func comparePair(t, ref *toolRun) pairStats {
	var p pairStats
	if t == nil || ref == nil {
		return p
	}
	for r := 0; r < min(len(t.Values), len(ref.Values)); r++ {
		p.add(t.Values[r], ref.Values[r])
	}
	return p
}

// add adds one round.
func (p *pairStats) add(vals, ref []procValue) {
	want := map[int]uint64{}
	for _, v := range ref {
		want[v.PID] = v.PssAnon
	}
	for _, v := range vals {
		s, ok := want[v.PID]
		if !ok {
			continue
		}
		p.Compared++
		if v.PssAnon>>10 == s>>10 {
			p.EqualKB++
		}
		p.MaxRel = max(p.MaxRel, relDiff(v.PssAnon, s))
	}
}

func relDiff(a, b uint64) float64 {
	if a == b {
		return 0
	}
	return float64(max(a, b)-min(a, b)) / float64(max(a, b))
}

func medianOf(vs []procValue, f func(procValue) uint64) uint64 {
	v := make([]uint64, len(vs))
	for i, x := range vs {
		v[i] = f(x)
	}
	return median(v)
}
