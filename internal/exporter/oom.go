package exporter

import (
	"sort"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/watch"
)

// ranked is a host process with its PostgreSQL instance and role, if any.
type ranked struct {
	pid, score int
	comm, role string
	port       string
	inst       int // index in the snapshot's instances, -1 for none
}

// rankOOM orders every process by oom_score, highest (the next victim)
// first, ties by PID.
func rankOOM(s *watch.Sample) []ranked {
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
			r.port = portLabel(s.Snapshot.Postgres[o.inst].Port)
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

func collectOOM(ch chan<- prometheus.Metric, s *watch.Sample, top int) {
	rs := rankOOM(s)
	for i, r := range rs {
		if i >= top {
			break
		}
		ch <- gauge(descOOMTop, float64(r.score), strconv.Itoa(i+1), strconv.Itoa(r.pid), r.comm, r.role, r.port)
	}
	for i, in := range s.Snapshot.Postgres {
		if rank, ok := victimRank(rs, i); ok {
			ch <- gauge(descOOMRank, float64(rank), labelsOf(in)...)
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

func collectFindings(ch chan<- prometheus.Metric, s *watch.Sample) {
	counts := map[advise.Severity]int{}
	seen := map[[2]string]bool{}
	for _, f := range s.Findings {
		k := [2]string{f.ID, f.Subject}
		if seen[k] {
			continue
		}
		seen[k] = true
		counts[f.Severity]++
		ch <- gauge(descFinding, 1, f.ID, f.Severity.String(), f.Subject)
	}
	for sev := advise.Info; sev <= advise.Critical; sev++ {
		ch <- gauge(descFindings, float64(counts[sev]), sev.String())
	}
}
