package postmortem

import (
	"cmp"
	"fmt"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// hostSection is what this host shows about the events of its own logs,
// kept apart from what the logs show: a log from another machine gets no
// remark about this one. why says why there is no section.
func hostSection(r *Report, in Input, crashes []crashRef) (*HostSection, string) {
	var mine []Explained
	for _, x := range r.Events {
		if x.FromThisHost {
			mine = append(mine, x)
		}
	}
	var myCrashes []crashRef
	for _, c := range crashes {
		if c.ThisHost {
			myCrashes = append(myCrashes, c)
		}
	}
	if len(mine) == 0 && len(myCrashes) == 0 {
		return nil, notMine(r)
	}
	about := in.FindingsAbout
	about = cmp.Or(about, "this host")
	h := &HostSection{About: about}
	h.Notes = hostNotes(mine, myCrashes, in)
	h.Findings = RelevantFindings(in.Findings, instancesOf(mine, myCrashes))
	if len(h.Notes) == 0 && len(h.Findings) == 0 {
		return nil, ""
	}
	return h, ""
}

// notMine says why no event is this host's.
func notMine(r *Report) string {
	switch {
	case len(r.Events) > 0:
		return "no event comes from this host's own logs (" + r.Events[0].Origin + "), so nothing about this host is shown; " +
			"run dbmem check on the host they come from for its state"
	case len(r.Crashes) > 0:
		return "the database logs were given on the command line, so nothing about this host is shown"
	}
	return ""
}

// hostNotes are remarks on this host now that bear on its own events.
func hostNotes(mine []Explained, crashes []crashRef, in Input) []string {
	var out []string
	for _, x := range mine {
		if (x.Victim != nil && x.Victim.ShmemDominates) || (x.Machine != nil && len(x.Machine.Dominant) > 0) {
			if n := hugeNow(in.Snapshot); n != "" {
				out = append(out, n)
			}
			break
		}
	}
	for _, x := range mine {
		if in := instanceIn(in.Snapshot, x.Scope.Cgroup); in != nil {
			wc := advise.PostgresWorkload(in, advise.DefaultNodesPerQuery).WorstCase()
			is := "is"
			if len(wc.Skipped) > 0 {
				is = "is at least" // lines whose settings were not read are left out
			}
			out = append(out, fmt.Sprintf("%s runs in the cgroup %s now; its worst case %s %s.", advise.PostgresSubject(in),
				x.Scope.Cgroup, is, units.Bytes(wc.TotalBytes)))
			break
		}
	}
	for _, c := range crashes {
		if c.Signal != nil && *c.Signal == 7 {
			out = append(out, hugetlbNotes(in.Hugetlb, c.Instance)...)
		}
	}
	return out
}

// hugeNow says whether the instances of the snapshot use huge pages.
func hugeNow(s *snapshot.Snapshot) string {
	if s == nil || len(s.Postgres) == 0 {
		return ""
	}
	for _, in := range s.Postgres {
		if in.Shared == nil || !in.Shared.Hugetlb {
			return fmt.Sprintf("%s maps its shared memory in 4 KiB pages now.", advise.PostgresSubject(in))
		}
	}
	return "Every running PostgreSQL instance already maps its shared memory in huge pages."
}

// instanceIn returns the snapshot's instance whose cgroup is path.
func instanceIn(s *snapshot.Snapshot, path string) *postgres.Instance {
	if s == nil || path == "" {
		return nil
	}
	for _, in := range s.Postgres {
		if in.Cgroup != nil && (in.Cgroup.Path == path || in.Cgroup.LimitPath == path) {
			return in
		}
	}
	return nil
}

// instancesOf names the instances this host's events involve.
func instancesOf(events []Explained, crashes []crashRef) map[string]bool {
	out := map[string]bool{}
	add := func(s string) {
		if s != "" {
			out[s] = true
		}
	}
	for _, x := range events {
		if x.Victim != nil {
			add(x.Victim.Instance)
		}
		if x.Crash != nil {
			add(x.Crash.Instance)
		}
		for _, t := range x.Tasks {
			add(t.Instance)
		}
	}
	for _, c := range crashes {
		add(c.Instance)
	}
	return out
}
