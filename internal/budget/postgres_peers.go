package budget

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/units"
)

// peers are PGTune's and timescaledb-tune's settings for the same host
// (its RAM, CPUs, max_connections and profile), each with the private
// memory its settings would take under the budget's concurrency and
// baseline.
func (b *pgBudget) peers() []Peer {
	h := b.in.Host
	conns := b.in.Settings.MaxConnections
	ram := h.RAMBytes // what a person types in PGTune's form: the container's memory when it has a limit
	if h.CgroupLimitBytes != nil && *h.CgroupLimitBytes < ram {
		ram = *h.CgroupLimitBytes
	}
	out := []Peer{PGTune(ram, h.CPUs, conns, b.in.Major, b.in.Profile), TSTune(h.RAMBytes, h.CPUs, conns, b.in.Major)}
	for i := range out {
		out[i].TotalBytes = b.peerTotal(out[i])
		out[i].Fits = out[i].TotalBytes > 0 && out[i].TotalBytes <= b.r.LimitBytes
	}
	return out
}

// peerTotal is the budget's sum with the peer's memory settings: same
// limit, baseline, concurrency; 0 when the peer sets no work_mem.
func (b *pgBudget) peerTotal(p Peer) uint64 {
	wm, ok := peerBytes(p, "work_mem")
	if !ok {
		return 0
	}
	s := b.s
	mwm, _ := peerBytes(p, "maintenance_work_mem")
	av := mwm
	if v, ok := peerBytes(p, "autovacuum_work_mem"); ok {
		av = v
	}
	avWorkers := peerInt(p, "autovacuum_max_workers", s.AutovacuumMaxWorkers)
	if b.in.Major > 0 && b.in.Major < 17 {
		av = min(av, vacuumCap)
	}
	parallel := peerInt(p, "max_parallel_workers", b.in.Settings.MaxParallelWorkers)
	procs := s.MaxConnections + avWorkers + parallel + AuxProcesses + s.IOWorkers
	total := sumTerms(b.baselineTerms(s.MaxConnections, procs)) + uint64(procs)*b.pageTables + mwm + uint64(avWorkers)*av + uint64(b.active)*s.TempBuffersBytes
	if b.in.Settings.JIT && peerString(p, "jit") != "off" {
		total += uint64(b.active) * b.jitCost
	}
	return total + mulBytes(b.active+parallel, wm, b.factor)
}

func peerString(p Peer, name string) string {
	for _, s := range p.Settings {
		if s.Name == name {
			return s.Value
		}
	}
	return ""
}

func peerInt(p Peer, name string, dflt int) int {
	if v, err := strconv.Atoi(peerString(p, name)); err == nil {
		return v
	}
	return dflt
}

// peerBytes reads "11612kB", "306MB", "1GB".
func peerBytes(p Peer, name string) (uint64, bool) {
	b, err := units.ParsePG(peerString(p, name), "")
	return b, err == nil
}

// differs says, at a glance, why dbmem's numbers are not the peers'.
func (b *pgBudget) differs() []string {
	var out []string
	h := b.in.Host
	how := fmt.Sprintf("%s per process (p95 Pss_Anon, %s)", units.Bytes(b.baseline), DefaultFor(b.in.Major).Source)
	if m := b.in.Measured; m != nil && m.Backends > 0 {
		how = fmt.Sprintf("%s per process on average (each role's own p95, measured over %d backends)", units.Bytes(b.baselineAvg()), m.Backends)
	}
	out = append(out, fmt.Sprintf("baseline: %s; PGTune and timescaledb-tune count nothing for an idle connection", how))
	out = append(out, fmt.Sprintf("concurrency: %d active sessions, not (max_connections + workers) x 3 work_mem (PGTune) or max_connections x round(CPUs / 2) (timescaledb-tune)",
		b.active))
	out = append(out, fmt.Sprintf("limit: %s (%s), not RAM - shared_buffers (PGTune) or all of RAM (timescaledb-tune)",
		units.Bytes(b.r.LimitBytes), b.r.LimitSource))
	if h.HugePoolBytes > 0 {
		out = append(out, fmt.Sprintf("huge pages: the %s pool is RAM no private memory can use", units.Bytes(h.HugePoolBytes)))
	}
	if h.CoHostedBytes != nil && *h.CoHostedBytes > 0 {
		out = append(out, fmt.Sprintf("co-hosted software: %s of other processes' private memory (%s)", units.Bytes(*h.CoHostedBytes), h.CoHostedFrom))
	}
	if h.CgroupLimitBytes != nil && *h.CgroupLimitBytes < h.RAMBytes {
		out = append(out, "the cgroup limit "+units.Bytes(*h.CgroupLimitBytes)+": timescaledb-tune reads the host's RAM and CPUs (github.com/pbnjay/memory, runtime.NumCPU), PGTune what it is told")
	}
	if set, ok := b.r.Setting("jit"); ok {
		out = append(out, "JIT: "+set.Value+" ("+set.Formula+")")
	}
	return append(out, b.spillDiffers()...)
}

func (b *pgBudget) spillDiffers() []string {
	var raised, quiet []string
	for _, r := range b.r.Roles {
		switch {
		case r.Proposed != "" && r.SpillBytes > 0:
			raised = append(raised, fmt.Sprintf("%q %s", r.Name, r.Proposed))
		case r.SpillBytes == 0:
			quiet = append(quiet, fmt.Sprintf("%q", r.Name))
		}
	}
	if b.in.Measured == nil {
		return []string{"spills: none measured (a what-if): one work_mem for every role"}
	}
	if len(raised) == 0 {
		return []string{"spills: no role's spills call for more work_mem"}
	}
	s := "spills: only the roles that spill get more work_mem (" + strings.Join(raised, ", ") + ")"
	if len(quiet) > 0 {
		s += "; not " + strings.Join(quiet, ", ")
	}
	return []string{s}
}
