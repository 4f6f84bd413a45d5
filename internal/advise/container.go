package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// containerChecks: a database that uses huge pages under a hugetlb fault
// limit without reservation accounting (SIGBUS), and a MySQL worst case
// above its cgroup's memory limit. PostgreSQL's worst case against its
// cgroup is judged with its other memory checks.
func containerChecks(h host, s *snapshot.Snapshot) []finding.Finding {
	var out []finding.Finding
	for _, in := range s.Postgres {
		cg, ok := s.CgroupOf(in.PostmasterPID)
		wants := in.Settings.String("huge_pages") != "off" || in.Shared != nil && in.Shared.Hugetlb
		var seg uint64
		if in.Shared != nil {
			seg = in.Shared.SizeBytes
		}
		if ok {
			out = append(out, checkHugetlbSIGBUS(h, PostgresSubject(in), cg, wants, seg)...)
		}
	}
	for _, in := range s.MySQL {
		if in.Cgroup == nil {
			continue
		}
		wants := in.LargePages() || len(in.Memory.HugeMappings) > 0
		var seg uint64
		for _, m := range in.Memory.HugeMappings {
			seg += m.SizeBytes
		}
		out = append(out, checkHugetlbSIGBUS(h, MySQLSubject(in), *in.Cgroup, wants, seg)...)
		out = append(out, checkMySQLCgroupLimit(in)...)
	}
	return out
}

// checkHugetlbSIGBUS: a fault limit without a reservation limit is a
// warning; critical when the huge pages mapped (segment bytes) exceed the
// fault limit and the limit was already hit (events "max", failcnt): the
// next touch past it is a SIGBUS.
func checkHugetlbSIGBUS(h host, subject string, cg linux.CgroupInfo, wantsHuge bool, segment uint64) []finding.Finding {
	if !wantsHuge {
		return nil
	}
	var out []finding.Finding
	for _, hl := range cg.Hugetlb {
		if !hl.FaultLimitOnly() {
			continue
		}
		size := linux.HugetlbSizeName(hl.PageSizeBytes)
		rsvd := "not set"
		if !hl.RsvdAccounting {
			rsvd = "no reservation accounting in this kernel (before 5.7)"
		}
		files := map[int]string{1: "hugetlb." + size + ".limit_in_bytes", 2: "hugetlb." + size + ".max"}
		out = append(out, finding.Finding{ID: "container.hugetlb_sigbus", Severity: finding.Warning, Subject: subject,
			Title: fmt.Sprintf("huge pages limited to %s by the cgroup without a reservation limit: SIGBUS risk", units.Bytes(*hl.LimitBytes)),
			Evidence: []finding.Evidence{ev(files[hl.Version], units.Bytes(*hl.LimitBytes)+" at "+hl.LimitPath, "cgroup v"+fmt.Sprint(hl.Version)),
				ev("hugetlb."+size+".rsvd limit", rsvd, "cgroup"), ev("usage", bytesOf(hl.UsageBytes), "cgroup"),
				ev("container", containerText(cg.Container), "/proc/PID/cgroup")},
			Why: "The fault limit is charged when a page is first touched, not when it is mapped: a database whose shared memory " +
				"exceeds it starts normally and is killed by SIGBUS (\"Bus error\") when it touches the page over the limit.",
			Fix: "Set the reservation limit too (hugetlb." + size + ".rsvd.max, cgroup v2, kernel 5.7+: runc 1.1.10 and later set it " +
				"from the pod's request) so mmap fails cleanly, and give the container at least the pages it maps (Kubernetes " +
				"resources.requests and limits hugepages-" + PageSizeName(hl.PageSizeBytes, "k8s") + ")."})
		f := &out[len(out)-1]
		if segment > 0 {
			f.Evidence = append(f.Evidence, ev("huge pages mapped", units.Bytes(segment), "smaps"))
		}
		if hl.LimitHits != nil {
			f.Evidence = append(f.Evidence, ev("faults refused by the limit", fmt.Sprint(*hl.LimitHits), "hugetlb."+size+".events max / failcnt"))
		}
		if segment > *hl.LimitBytes && hl.LimitHits != nil && *hl.LimitHits > 0 {
			f.Severity = finding.Critical
			f.Title = fmt.Sprintf("%s of huge pages mapped under a %s fault limit without a reservation limit, hit %d times: the next "+
				"touch past it is a SIGBUS", units.Bytes(segment), units.Bytes(*hl.LimitBytes), *hl.LimitHits)
		}
	}
	return out
}

func containerText(c *linux.Container) string {
	if c == nil {
		return "none recognised"
	}
	return c.String()
}

func checkMySQLCgroupLimit(in *mysql.Instance) []finding.Finding {
	m := in.Cgroup.Memory
	if m == nil || m.LimitBytes == nil {
		return nil
	}
	wc := mysql.ComputeWorstCase(in)
	if wc.TotalBytes <= *m.LimitBytes {
		return nil
	}
	over := wc.TotalBytes - *m.LimitBytes
	return []finding.Finding{{ID: "container.worst_case_over_limit", Severity: finding.Warning, Subject: MySQLSubject(in),
		Title: fmt.Sprintf("worst case %s exceeds the cgroup memory limit %s", units.Bytes(wc.TotalBytes), units.Bytes(*m.LimitBytes)),
		Evidence: []finding.Evidence{ev("memory limit", units.Bytes(*m.LimitBytes)+" at "+m.LimitPath, fmt.Sprintf("cgroup v%d", m.Version)),
			ev("usage", fmt.Sprintf("%s (anon %s, shmem %s, file %s)", bytesOf(m.UsageBytes), bytesOf(m.AnonBytes), bytesOf(m.ShmemBytes), bytesOf(m.FileBytes)), "memory.stat"),
			ev("worst case", units.Bytes(wc.TotalBytes), worstSum(wc))},
		Why: "When the server's threads allocate their buffers at once the cgroup reaches its limit and the kernel kills the " +
			"server (oom_kill in memory.events): the node may have free memory, the container has not.",
		Fix:          "Raise the container's memory limit (Kubernetes resources.limits.memory) above the worst case, or lower max_connections and the buffers.",
		BytesAtStake: &over, StakeFormula: fmt.Sprintf("worst case beyond the limit: %s - %s", units.Bytes(wc.TotalBytes), units.Bytes(*m.LimitBytes))}}
}
