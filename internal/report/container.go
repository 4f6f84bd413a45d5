package report

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// placed is a database process and its cgroup.
type placed struct {
	label string
	cg    linux.CgroupInfo
}

func placements(s *snapshot.Snapshot) []placed {
	var out []placed
	for _, c := range s.Cgroups {
		out = append(out, placed{fmt.Sprintf("postgres %d", c.PID), c})
	}
	for _, in := range s.MySQL {
		if in.Cgroup != nil {
			out = append(out, placed{fmt.Sprintf("%s %d", in.Flavor, in.PID), *in.Cgroup})
		}
	}
	return out
}

// notable: a container, a memory limit or a hugetlb limit.
func (p placed) notable() bool {
	if p.cg.Container != nil || p.cg.Memory != nil && p.cg.Memory.LimitBytes != nil {
		return true
	}
	for _, h := range p.cg.Hugetlb {
		if h.LimitBytes != nil || h.RsvdLimitBytes != nil {
			return true
		}
	}
	return false
}

// writeContainers renders where dbmem and the databases run when any of
// them is in a container or under a memory or hugetlb limit; nothing on a
// plain host.
func writeContainers(b *strings.Builder, s *snapshot.Snapshot, st style) {
	ps := placements(s)
	show := s.Environment.InContainer
	for _, p := range ps {
		show = show || p.notable()
	}
	if !show {
		return
	}
	fmt.Fprintf(b, "\n%s  dbmem runs %s\n", st.head("CONTAINERS AND CGROUPS"), s.Environment)
	if e := s.Environment; e.InContainer || e.SysctlsReadOnly {
		how := "shared with every container on the node"
		if e.SysctlsReadOnly {
			how = "/proc/sys is read-only here"
		}
		fmt.Fprintf(b, "  Node         %s\n", st.warn("kernel settings above are the node's ("+how+"): change them on the node"))
	}
	for _, p := range ps {
		fmt.Fprintf(b, "  %-12s %s\n", p.label, placeLine(p.cg))
		for _, h := range p.cg.Hugetlb {
			fmt.Fprintf(b, "  %-12s %s\n", "", hugetlbLine(h, st))
		}
		if in := mysqlByPID(s, p.cg.PID); in != nil && p.cg.Memory != nil && p.cg.Memory.LimitBytes != nil {
			wc := mysql.ComputeWorstCase(in)
			if wc.TotalBytes > *p.cg.Memory.LimitBytes {
				fmt.Fprintf(b, "  %-12s %s\n", "", st.bad(fmt.Sprintf("worst case %s exceeds the memory limit %s: the cgroup's OOM killer ends the server",
					units.Bytes(wc.TotalBytes), units.Bytes(*p.cg.Memory.LimitBytes))))
			}
		}
	}
}

func placeLine(cg linux.CgroupInfo) string {
	where := "no container"
	if cg.Container != nil {
		where = cg.Container.String()
	}
	m := cg.Memory
	if m == nil {
		return where + "; no memory controller"
	}
	s := fmt.Sprintf("%s; memory v%d %s: usage %s (anon %s, shmem %s, file %s), ", where, m.Version, m.Path,
		units.OptBytes(m.UsageBytes), units.OptBytes(m.AnonBytes), units.OptBytes(m.ShmemBytes), units.OptBytes(m.FileBytes))
	if m.LimitBytes == nil {
		s += "no limit"
	} else {
		s += "limit " + units.Bytes(*m.LimitBytes)
	}
	if m.OOMKills != nil && *m.OOMKills > 0 {
		s += fmt.Sprintf(", %d OOM kills", *m.OOMKills)
	}
	return s
}

func hugetlbLine(h linux.CgroupHugetlb, st style) string {
	lim, rsvd := "no limit", "no reservation limit"
	if h.LimitBytes != nil {
		lim = "limit " + units.Bytes(*h.LimitBytes)
	}
	if !h.RsvdAccounting {
		rsvd = "no reservation accounting (kernel < 5.7)"
	} else if h.RsvdLimitBytes != nil {
		rsvd = "reservation limit " + units.Bytes(*h.RsvdLimitBytes)
	}
	s := fmt.Sprintf("hugetlb %s v%d %s: usage %s, %s, %s", linux.HugetlbSizeName(h.PageSizeBytes), h.Version, h.Path,
		units.OptBytes(h.UsageBytes), lim, rsvd)
	if h.FaultLimitOnly() {
		s += "; " + st.bad("a database that maps more gets SIGBUS (Bus error) when it touches the page over the limit")
	}
	return s
}

func mysqlByPID(s *snapshot.Snapshot, pid int) *mysql.Instance {
	for _, in := range s.MySQL {
		if in.PID == pid {
			return in
		}
	}
	return nil
}

// writeOthers renders the sections beyond PostgreSQL: MySQL/MariaDB
// servers, SysV shared memory, containers and cgroups.
func writeOthers(b *strings.Builder, s *snapshot.Snapshot, st style) {
	writeMySQL(b, s, st)
	writeSysV(b, s.SysV, st)
	writeContainers(b, s, st)
}
