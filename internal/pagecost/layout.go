package pagecost

import (
	"sync"

	"github.com/dbmem/dbmem/internal/linux"
)

// Reading /proc/PID/maps is most of the fast path's cost per process (the
// kernel prints ~280 lines, resolving a path for each file mapping): about
// 0.3 ms of a PostgreSQL backend's 0.7 ms. Backends forked from one
// postmaster share its layout: the shared segment, the program and its
// libraries sit at the same addresses in each. So the maps of one process
// of a family (same parent, same program) give the plan for its siblings:
// read pagemap everywhere except the shared, hugetlb, special and text
// mappings of that one process, holes between mappings included, so that
// a sibling's own later mappings (its heap, a library it loaded) are read
// too. A sibling's count of anonymous pages must then equal its RssAnon
// exactly; if its layout differs where it matters (anonymous memory where
// the plan skips, hugetlb pages where the plan reads), the counts differ
// and it is read again from its own maps, text included.

// layoutKey identifies a family of processes expected to share a layout.
type layoutKey struct {
	ppid int
	name string
}

// layoutKeyOf returns the family of a process; false for children of init
// (unrelated daemons) and processes without a name.
func layoutKeyOf(st linux.Status) (layoutKey, bool) {
	return layoutKey{ppid: st.PPid, name: st.Name}, st.PPid > 1 && st.Name != ""
}

// layout is the reading plan taken from one process's maps.
type layout struct {
	spans        []span
	skippedBytes uint64
}

// layouts holds the layouts found in one Measure call, shared by its
// goroutines. A nil *layouts has none and keeps none.
type layouts struct {
	mu    sync.Mutex
	byKey map[layoutKey]*layout
}

func (l *layouts) get(k layoutKey) *layout {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.byKey[k]
}

// put keeps the first layout of a family.
func (l *layouts) put(k layoutKey, lay layout) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byKey == nil {
		l.byKey = map[layoutKey]*layout{}
	}
	if _, ok := l.byKey[k]; !ok {
		l.byKey[k] = &lay
	}
}

// layoutOf returns the spans between the mappings that are never read
// (shared, hugetlb, special) or deferred (large text), holes included, from
// address 0 to the end of the last mapping in the user address space. A
// span that contains a mapping that may be hugetlb does not trust the
// exclusive bit.
func layoutOf(maps []vma) layout {
	var l layout
	var pos, top uint64
	trust := true
	closeAt := func(end uint64) {
		if end > pos {
			l.spans = append(l.spans, span{start: pos, end: end, trustExclusive: trust})
		}
		trust = true
	}
	for _, m := range maps {
		if m.end > taskSizeLimit {
			// [vsyscall]: skipped, and no span may reach past the user
			// address space (PAGEMAP_SCAN refuses it).
			l.skippedBytes += m.end - m.start
			continue
		}
		top = max(top, m.end)
		switch {
		case !m.mayHoldAnon():
			l.skippedBytes += m.end - m.start
			fallthrough
		case m.deferred():
			closeAt(m.start)
			pos = max(pos, m.end)
		case m.act == vmaReadCheck:
			trust = false
		}
	}
	closeAt(top)
	return l
}
