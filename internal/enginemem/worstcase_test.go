package enginemem

import "testing"

func TestSumAndMeasured(t *testing.T) {
	w := WorstCase{
		Lines: []Line{{Name: "pool", Bytes: 100, Scope: InHugePages}, {Name: "cache", Bytes: 10, Scope: Global},
			{Name: "connections", Bytes: 50}, {Name: "performance_schema"}},
		PerConnection: []Line{{Name: "sort", Bytes: 3, Scope: PerConnection}, {Name: "join", Bytes: 2, Scope: PerConnection}},
		Unmeasured:    []string{"performance_schema"},
	}
	if w.Sum(Global, InHugePages) != 110 || w.Sum(PerConnection) != 5 || w.Sum(Global) != 10 {
		t.Errorf("sums %d %d %d", w.Sum(Global, InHugePages), w.Sum(PerConnection), w.Sum(Global))
	}
	if w.Measured("performance_schema") || !w.Measured("pool") {
		t.Error("measured")
	}
	if l, ok := w.Line("connections"); !ok || l.Bytes != 50 {
		t.Errorf("line %+v %v", l, ok)
	}
	n := HugeNeed{Pages: 3, PageSizeBytes: 2 << 20}
	if n.Bytes() != 6<<20 || PageTableBytes(2, 4097, 0) != 2*2*8 {
		t.Error("bytes")
	}
}
