package report

import (
	"cmp"
	"fmt"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/texttable"
	"github.com/dbmem/dbmem/internal/units"
)

// settingsShown are the settings the report prints, in order.
var settingsShown = []string{
	"shared_buffers", "max_connections", "work_mem", "hash_mem_multiplier", "maintenance_work_mem",
	"autovacuum_work_mem", "autovacuum_max_workers", "max_worker_processes", "max_parallel_workers",
	"huge_pages", "huge_page_size", "shared_memory_type", "shared_memory_size",
	"shared_memory_size_in_huge_pages", "huge_pages_status", "jit",
}

func writeInstance(b *strings.Builder, in *postgres.Instance, host linux.Host, o Options, st style) {
	version := in.Version
	version = cmp.Or(version, "(version unknown)")
	port := "port unknown"
	if in.Port != 0 {
		port = fmt.Sprintf("port %d", in.Port)
	}
	fmt.Fprintf(b, "%s  %s  %s  postmaster %d\n", st.head("POSTGRESQL "+inert.Text(version)), inert.Text(in.DataDir), port, in.PostmasterPID)
	conn := inert.Text(in.Connection)
	if !in.Connected {
		conn = st.warn(conn)
	}
	fmt.Fprintf(b, "  Connection   %s\n", conn)
	writeSettings(b, in, st)
	fmt.Fprintf(b, "  Shared mem   %s\n", sharedLine(in, st))
	fmt.Fprintf(b, "  Cgroup       %s\n", cgroupLine(in.Cgroup))
	writeMemory(b, in, host)
	writeBudget(b, o.Budgets[in.PostmasterPID], st)
	writeProcesses(b, in, o)
}

func writeSettings(b *strings.Builder, in *postgres.Instance, st style) {
	var parts []string
	for _, n := range settingsShown {
		v, ok := in.Settings[n]
		if !ok {
			continue
		}
		s := n + "=" + inert.Text(v.Value)
		if v.Source != postgres.FromServer && v.Source != postgres.FromDefault {
			s += "(" + string(v.Source) + ")"
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		parts = []string{"unknown: not read from the server nor its configuration files (see gaps)"}
	}
	writeLabeled(b, "Settings", wrapWords(parts, st.listWidth()))
}

func sharedLine(in *postgres.Instance, st style) string {
	sh := in.Shared
	if sh == nil {
		return "unknown (see NOT SEEN)"
	}
	pages := "4 KiB pages"
	if sh.Hugetlb {
		pages = units.Bytes(sh.PageSizeBytes) + " huge pages"
	}
	line := fmt.Sprintf("%s mapped as %q in %s; postmaster touched %s", units.Bytes(sh.SizeBytes), sh.Path, pages, units.Bytes(sh.PostmasterRssBytes))
	hp := in.Settings.String("huge_pages")
	switch {
	case !sh.Hugetlb && hp == "try":
		line += "; " + st.warn("huge_pages=try fell back to 4 KiB pages")
	case !sh.Hugetlb && hp == "off":
		line += "; " + st.warn("huge_pages=off")
	}
	return line
}

func cgroupLine(cg *linux.CgroupMemory) string {
	if cg == nil {
		return "no memory cgroup controller"
	}
	limit := "no limit"
	if cg.LimitBytes != nil {
		limit = "limit " + units.Bytes(*cg.LimitBytes)
		if cg.LimitPath != cg.Path {
			limit += " (set on " + cg.LimitPath + ")"
		}
	}
	s := fmt.Sprintf("v%d %s: usage %s, %s", cg.Version, inert.Text(cg.Path), units.OptBytes(cg.UsageBytes), inert.Text(limit))
	if cg.OOMKills != nil && *cg.OOMKills > 0 {
		s += fmt.Sprintf(", %d OOM kills", *cg.OOMKills)
	}
	return s
}

func writeMemory(b *strings.Builder, in *postgres.Instance, host linux.Host) {
	s := postgres.Summarize(in)
	how := "Pss_Anon + VmPTE + VmSwap"
	if !s.PrivateExact {
		how = "RssAnon + VmPTE + VmSwap where Pss_Anon was not read: an over-estimate"
	}
	fmt.Fprintf(b, "  Private      %s over %d processes (%s); ps/top would add up RSS to %s\n",
		units.OptBytes(s.PrivateBytes), s.Processes, how, units.OptBytes(s.RSSBytes))
	if s.ClientBackends > 0 {
		fmt.Fprintf(b, "  Per client   %d client backends: median %s, p95 %s each\n",
			s.ClientBackends, units.OptBytes(s.ClientMedianBytes), units.OptBytes(s.ClientP95Bytes))
	} else {
		fmt.Fprintf(b, "  Per client   no client backends connected\n")
	}
	pt := host.Meminfo.PageTablesBytes
	fmt.Fprintf(b, "  Page tables  VmPTE sum %s = %s of host PageTables %s\n",
		units.OptBytes(s.VmPTEBytes), units.OptPercent(s.VmPTEBytes, pt), units.OptBytes(pt))
}

func writeProcesses(b *strings.Builder, in *postgres.Instance, o Options) {
	procs, hidden := shownProcesses(in.Processes, o.All, o.TopClients)
	t := texttable.New(">PID", "ROLE", ">RSS", ">ANON", ">SHMEM", ">HUGETLB", ">VMPTE", ">SWAP",
		">PSS", ">PSS_ANON", ">PSS_SHMEM", ">PRIVATE", ">OOM", ">ADJ").Fit(o.Width).
		Drop("HUGETLB", "SWAP", "PSS_SHMEM", "SHMEM", "ANON", "ADJ", "PSS")
	for _, p := range procs {
		s := p.Status
		pss, pssAnon, pssShmem := "-", "-", "-"
		if r := p.Rollup; r != nil {
			pss = units.Short(r.PssBytes)
			pssAnon, pssShmem = units.OptShort(r.PssAnonBytes), units.OptShort(r.PssShmemBytes)
		}
		if m := p.Private; pssAnon == "-" && m != nil {
			pssAnon = units.Short(m.PssAnonBytes) // the fast path's: exact, without Pss
		}
		cost, _, ok := p.PrivateCost()
		huge, hok := p.HugetlbBytes()
		t.Add(fmt.Sprint(p.PID), roleLabel(p), units.OptShort(s.VmRSSBytes), units.OptShort(s.RssAnonBytes), units.OptShort(s.RssShmemBytes),
			optShort(huge, hok), units.OptShort(s.VmPTEBytes), units.OptShort(s.VmSwapBytes), pss, pssAnon, pssShmem,
			optShort(cost, ok), units.OptInt(p.OOMScore, units.UnknownCell), units.OptInt(p.OOMScoreAdj, units.UnknownCell))
	}
	b.WriteString("\n" + t.Render("  "))
	if hidden > 0 {
		fmt.Fprintf(b, "  ... %d more client backends with a smaller private cost (--all shows every process)\n", hidden)
	}
}

func optShort(v uint64, ok bool) string {
	if !ok {
		return units.UnknownCell
	}
	return units.Short(v)
}

// shownProcesses keeps every non-client process and the top clients by
// private cost; all=true keeps everything.
func shownProcesses(ps []postgres.Proc, all bool, top int) ([]postgres.Proc, int) {
	var others, clients []postgres.Proc
	for _, p := range ps {
		if p.Role == postgres.RoleClient {
			clients = append(clients, p)
		} else {
			others = append(others, p)
		}
	}
	sort.SliceStable(clients, func(i, j int) bool {
		a, _, aok := clients[i].PrivateCost()
		c, _, cok := clients[j].PrivateCost()
		return aok && (!cok || a > c) // unknown costs last
	})
	hidden := 0
	if !all && len(clients) > top {
		hidden = len(clients) - top
		clients = clients[:top]
	}
	return append(others, clients...), hidden
}

func roleLabel(p postgres.Proc) string {
	switch {
	case p.Role == postgres.RoleClient && p.Unauthenticated:
		return truncRunes("client authenticating, claims "+p.User+"@"+p.Database, 40)
	case p.Role == postgres.RoleClient:
		s := "client " + p.User + "@" + p.Database
		if p.State != "" {
			s += " " + p.State
		}
		return truncRunes(s, 40)
	case p.Detail != "" && (p.Role == postgres.RoleBgWorker || p.Role == postgres.RoleLRWorker):
		return truncRunes(string(p.Role)+": "+p.Detail, 40)
	}
	return string(p.Role)
}

func truncRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
