package mysql

import "github.com/dbmem/dbmem/internal/linux"

// Refreshed returns a copy of the instance with its process replaced by p,
// a fresh read of the same server's status (as `dbmem watch` makes on every
// tick), and the memory figures that come from status recomputed: private
// (RssAnon: status has no Pss), page tables, swap, huge pages and threads.
// The buffer pool and huge mappings stay as the last smaps read found them;
// settings, status variables and gaps as the last discovery read them.
func (in *Instance) Refreshed(p linux.Process) *Instance {
	c := *in
	c.Process = p
	m := measureMemory(p, nil, 0)
	m.BufferPool, m.HugeMappings = in.Memory.BufferPool, in.Memory.HugeMappings
	if m.PrivateBytes != nil && m.BufferPool != nil {
		var poolAnon uint64
		for _, x := range m.BufferPool.Mappings {
			if !x.Hugetlb && !x.SysV() {
				poolAnon += x.ResidentBytes
			}
		}
		outside := *m.PrivateBytes - min(poolAnon, *m.PrivateBytes)
		m.OutsidePoolBytes, m.PerThreadBytes = &outside, nil
		if m.Threads > 0 {
			m.PerThreadBytes = new(outside / uint64(m.Threads))
		}
	}
	c.Memory = m
	return &c
}
