package plan

import (
	"fmt"
	"sort"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// hostFacts are this host's sizes and current settings, and notes on what
// is unknown. RAM and swap come from meminfo, or from r.Given where the
// snapshot lacks the line (a partial capture); a plan needs the RAM (an
// error naming the flag without it), and plans without the swap what
// does not depend on it (advise.PlanResult.NotPlanned).
func hostFacts(s *snapshot.Snapshot, g Given) (advise.HostFacts, []string, error) {
	h := s.Host
	ram, ramNote, err := givenOrRead("MemTotal", "ram", h.Meminfo.MemTotalBytes, g.RAMBytes)
	if err != nil {
		return advise.HostFacts{}, nil, err
	}
	swap, swapNote, err := givenOrRead("SwapTotal", "swap", h.Meminfo.SwapTotalBytes, g.SwapBytes)
	if err != nil {
		return advise.HostFacts{}, nil, err
	}
	if ram == nil {
		return advise.HostFacts{}, nil, fmt.Errorf("/proc/meminfo has no MemTotal line: a plan needs the host's RAM; " +
			"give it with --ram SIZE (with --from or --proc: the RAM of the host captured; on this host, a what-if)")
	}
	f := advise.HostFacts{
		Name: h.Hostname, RAMBytes: *ram,
		NUMANodes: max(h.NUMANodes, 1), HugePageSizes: []uint64{},
		Now: &advise.HostNow{
			Sysctls: h.Sysctls, THP: h.THP, CommittedASBytes: h.Meminfo.CommittedASBytes,
			CommitLimitBytes: h.Meminfo.CommitLimitBytes, Pools: h.HugePools,
		},
	}
	notes := append(ramNote, swapNote...)
	if swap != nil {
		f.SwapBytes = *swap
	} else {
		f.SwapUnknown = "no SwapTotal line in /proc/meminfo"
	}
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

// givenOrRead is a meminfo size: the line read, else the flag's value.
// A flag beside a line read is refused: it only fills what is missing.
func givenOrRead(line, flag string, read, given *uint64) (*uint64, []string, error) {
	switch {
	case given == nil:
		return read, nil, nil
	case read != nil:
		return nil, nil, usage("--%s %s: /proc/meminfo has %s %s; with --from or --proc, --%s only gives a value the capture lacks",
			flag, units.Bytes(*given), line, units.Bytes(*read), flag)
	}
	return given, []string{fmt.Sprintf("%s %s from --%s: /proc/meminfo has no %s line", line, units.Bytes(*given), flag, line)}, nil
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
		p, g, err := linux.ReadProcess(fs, pid, measure.Status)
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
