package exporter

import (
	"sort"
	"strconv"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// ranked is a host process with its PostgreSQL instance and role, if any.
type ranked struct {
	pid, score int
	comm, role string
	port, dir  string
	inst       int // index in the snapshot's instances, -1 for none
}

// rankOOM orders every process by oom_score, highest (the next victim)
// first, ties by PID.
func rankOOM(s *sampler.Sample) []ranked {
	type owner struct {
		inst int
		role string
	}
	owners := map[int]owner{}
	for i, in := range s.Snapshot.Postgres {
		for _, p := range in.Processes {
			owners[p.PID] = owner{i, string(p.Role)}
		}
	}
	out := make([]ranked, 0, len(s.Processes))
	for _, p := range s.Processes {
		if p.OOMScore == nil {
			continue // not read: not ranked
		}
		r := ranked{pid: p.PID, score: *p.OOMScore, comm: p.Comm, inst: -1}
		if o, ok := owners[p.PID]; ok {
			r.inst, r.role = o.inst, o.role
			in := s.Snapshot.Postgres[o.inst]
			r.port, r.dir = portLabel(in.Port), in.DataDir
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].pid < out[j].pid
	})
	return out
}

// collectOOM sends the host's top processes by oom_score, by rank (no
// pid label: pids churn, ranks do not), and each instance's rank.
func collectOOM(out *sink, s *sampler.Sample, top int) {
	rs := rankOOM(s)
	for i, r := range rs {
		if i >= top {
			break
		}
		out.gauge(descOOMTop, float64(r.score), strconv.Itoa(i+1), r.comm, r.role, r.port, r.dir)
	}
	labels := pgLabels(s)
	for i := range s.Snapshot.Postgres {
		if rank, ok := victimRank(rs, i); ok {
			out.gauge(descOOMRank, float64(rank), labels[i]...)
		}
	}
}

// victimRank is 1 + the processes scored strictly higher than instance
// inst's highest, so that ties share a rank. rs is sorted by score.
func victimRank(rs []ranked, inst int) (int, bool) {
	for i, r := range rs {
		if r.inst != inst {
			continue
		}
		higher := i
		for higher > 0 && rs[higher-1].score == r.score {
			higher--
		}
		return higher + 1, true
	}
	return 0, false
}

func collectFindings(out *sink, s *sampler.Sample) {
	counts := map[finding.Severity]int{}
	seen := map[[2]string]bool{}
	for _, f := range s.Findings {
		k := [2]string{f.ID, f.Subject}
		if seen[k] {
			continue
		}
		seen[k] = true
		counts[f.Severity]++
		out.gauge(descFinding, 1, f.ID, f.Severity.String(), f.Subject)
	}
	for sev := finding.Info; sev <= finding.Critical; sev++ {
		out.gauge(descFindings, float64(counts[sev]), sev.String())
	}
}
