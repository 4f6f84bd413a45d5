package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// hostFacts are this host's sizes and current settings, and notes on what
// is unknown. A plan needs RAM and swap: without MemTotal or SwapTotal it
// is an error naming the lines and the way around (a what-if).
func hostFacts(s *snapshot.Snapshot) (advise.HostFacts, []string, error) {
	h := s.Host
	m := h.Meminfo
	var missing []string
	if m.MemTotalBytes == nil {
		missing = append(missing, "MemTotal")
	}
	if m.SwapTotalBytes == nil {
		missing = append(missing, "SwapTotal")
	}
	if len(missing) > 0 {
		return advise.HostFacts{}, nil, fmt.Errorf("/proc/meminfo has no %s line: a plan needs the host's RAM and swap; "+
			"give them for a what-if plan (dbmem plan --ram SIZE --swap SIZE)", strings.Join(missing, " or "))
	}
	f := advise.HostFacts{
		Name: h.Hostname, RAMBytes: *m.MemTotalBytes, SwapBytes: *m.SwapTotalBytes,
		NUMANodes: max(h.NUMANodes, 1), HugePageSizes: []uint64{},
		Now: &advise.HostNow{
			Sysctls: h.Sysctls, THP: h.THP, CommittedASBytes: m.CommittedASBytes,
			CommitLimitBytes: m.CommitLimitBytes, Pools: h.HugePools,
		},
	}
	var notes []string
	if size, ok := h.DefaultPageSize(); ok {
		f.DefaultHugePageBytes = size
	} else {
		notes = append(notes, "the default huge page size is unknown (no Hugepagesize line in /proc/meminfo): "+
			"huge pages are planned in 2 MiB pages unless --page-size says otherwise")
	}
	seen := map[uint64]bool{}
	for _, p := range h.HugePools {
		if !seen[p.PageSizeBytes] {
			seen[p.PageSizeBytes] = true
			f.HugePageSizes = append(f.HugePageSizes, p.PageSizeBytes)
		}
	}
	sort.Slice(f.HugePageSizes, func(i, j int) bool { return f.HugePageSizes[i] < f.HugePageSizes[j] })
	return f, notes, nil
}

// whatIfHost is a host described by flags.
func whatIfHost(w WhatIf) (advise.HostFacts, error) {
	if w.RAMBytes == 0 {
		return advise.HostFacts{}, usage("a what-if plan needs --ram")
	}
	if w.SwapBytes >= w.RAMBytes {
		return advise.HostFacts{}, usage("--swap %s is not smaller than --ram %s", units.Bytes(w.SwapBytes), units.Bytes(w.RAMBytes))
	}
	return advise.HostFacts{
		RAMBytes: w.RAMBytes, SwapBytes: w.SwapBytes,
		NUMANodes: max(w.NUMANodes, 1), DefaultHugePageBytes: 2 << 20,
	}, nil
}

// HostProcesses reads every process of the host (status, oom_score; no
// smaps) for the OOM ranking. Processes that exit meanwhile are skipped;
// unreadable ones are returned as gaps.
func HostProcesses(fs linux.FS) ([]linux.Process, []linux.Gap, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, nil, err
	}
	var out []linux.Process
	var gaps []linux.Gap
	for _, pid := range pids {
		p, g, err := linux.ReadProcess(fs, pid, linux.ProcessOptions{})
		if linux.IsGone(err) {
			continue
		}
		if err != nil {
			gaps = append(gaps, linux.Gap{What: fmt.Sprintf("process %d", pid), Why: err.Error(), Kind: linux.KindOf(err)})
			continue
		}
		gaps = append(gaps, g...)
		out = append(out, p)
	}
	return out, gaps, nil
}
