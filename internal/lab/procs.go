package lab

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/measure"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

// children returns the PIDs whose parent is pm.
func children(fs linux.FS, pm int) ([]int, error) {
	pids, err := linux.ListPIDs(fs)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, pid := range pids {
		st, err := linux.ReadStat(fs, pid)
		if err == nil && st.PPid == pm {
			out = append(out, pid)
		}
	}
	return out, nil
}

// readBackend reads one process; measure.Smaps adds smaps_rollup (Pss), which walks
// the page tables: about 40 ms for a backend that mapped 3 GiB through
// 4 KiB pages. ok is false when the process has exited.
func readBackend(fs linux.FS, pid int, m measure.Method) (Backend, bool, error) {
	p, _, err := linux.ReadProcess(fs, pid, m)
	if linux.IsGone(err) {
		return Backend{}, false, nil
	}
	if err != nil {
		return Backend{}, false, fmt.Errorf("read process %d: %w", pid, err)
	}
	b, err := backendOf(p)
	if err != nil && !fs.Exists(fs.ProcPath(strconv.Itoa(pid))) {
		return Backend{}, false, nil // it exited while it was read
	}
	return b, err == nil, err
}

func backendOf(p linux.Process) (Backend, error) {
	s, err := statusOf(p.PID, p.Status)
	if err == nil && (p.OOMScore == nil || p.OOMScoreAdj == nil) {
		err = fmt.Errorf("process %d: oom_score or oom_score_adj unreadable", p.PID)
	}
	if err != nil {
		return Backend{}, err
	}
	huge, _ := p.HugetlbBytes() // status's HugetlbPages is known (statusOf)
	b := Backend{
		PID: p.PID, Role: string(postgres.ParseTitle(p.Title, "").Role),
		RSSBytes: s.VmRSS, RssAnonBytes: s.RssAnon, RssShmemBytes: s.RssShmem,
		VmPTEBytes: s.VmPTE, VmSwapBytes: s.VmSwap, HugetlbBytes: huge,
		OOMScore: *p.OOMScore, OOMScoreAdj: *p.OOMScoreAdj, MinFlt: p.MinFlt, MajFlt: p.MajFlt,
	}
	if r := p.Rollup; r != nil && r.PssAnonBytes != nil {
		b.HasPss, b.PssBytes, b.PssAnonBytes = true, r.PssBytes, *r.PssAnonBytes
		if r.PssShmemBytes != nil {
			b.PssShmemBytes = *r.PssShmemBytes
		}
	}
	return b, nil
}

// sampleProcs reads the postmaster and its children. Pss is read for the
// postmaster and the checkpointer, and for the client backends only when
// rollupClients is set. skip is the lab's control connection's backend.
func sampleProcs(fs linux.FS, pm, skip int, rollupClients bool) (*ProcSample, error) {
	pids, err := children(fs, pm)
	if err != nil {
		return nil, err
	}
	s := &ProcSample{}
	if s.Postmaster, _, err = readBackend(fs, pm, measure.Smaps); err != nil {
		return nil, err
	}
	s.Postmaster.Role = string(postgres.RolePostmaster)
	s.All.add(s.Postmaster)
	for _, pid := range pids {
		if pid == skip {
			continue
		}
		b, ok, err := readBackend(fs, pid, measure.Status)
		if err == nil && ok && (rollupClients || b.Role != string(postgres.RoleClient)) {
			b, ok, err = readBackend(fs, pid, measure.Smaps)
		}
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		s.add(b)
	}
	return s, nil
}

func (s *ProcSample) add(b Backend) {
	s.All.add(b)
	switch postgres.Role(b.Role) {
	case postgres.RoleCheckpointer:
		s.Checkpointer = b
	case postgres.RoleClient:
		s.Clients.add(b)
	}
}

func (a *Agg) add(b Backend) {
	a.Count++
	a.RSSBytes += b.RSSBytes
	a.RssShmemBytes += b.RssShmemBytes
	a.VmPTEBytes += b.VmPTEBytes
	a.HugetlbBytes += b.HugetlbBytes
	a.PssBytes += b.PssBytes
	a.PssAnonBytes += b.PssAnonBytes
	a.PrivateBytes += b.PrivateBytes()
	a.MaxOOMScore = max(a.MaxOOMScore, b.OOMScore)
}
