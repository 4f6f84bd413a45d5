package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
)

// otherChecks judge what is not PostgreSQL: MySQL/MariaDB servers, the
// host's SysV shared memory and the containers and cgroups of every database.
func otherChecks(h host, s *snapshot.Snapshot) []finding.Finding {
	out := checkPoolStarvesHost(h, s)
	for _, in := range s.MySQL {
		out = append(out, checkMySQLBufferPool(h, in)...)
	}
	out = append(out, sysvChecks(s.SysV)...)
	return append(out, containerChecks(h, s)...)
}

// MySQLSubject names a MySQL/MariaDB server in findings.
func MySQLSubject(in *mysql.Instance) string {
	return fmt.Sprintf("%s (%s)", in.Name(), units.Or(in.DataDir, "data directory unknown"))
}

// mysqlProcess labels a MySQL/MariaDB server for the OOM ranking: one
// process holds the buffer pool and every connection's memory.
func mysqlProcess(in *mysql.Instance) labeled {
	comm := in.Process.Comm
	if comm == "" {
		comm = "mysqld"
	}
	return labeled{Process: in.Process, Label: fmt.Sprintf("%s (%s)", comm, in.Name()), Database: true}
}

const srcServerSmaps = "server's smaps"

// mysqlEvidence quotes a variable with where it came from.
func mysqlEvidence(in *mysql.Instance, name string) finding.Evidence {
	v, ok := in.Settings[name]
	if !ok {
		return ev(name, "unknown", "not read")
	}
	src := string(v.Source)
	switch {
	case v.Source == mysql.FromServer:
		src = "SHOW GLOBAL VARIABLES"
	case v.File != "":
		src = v.File
	}
	return ev(name, v.Value, src)
}

func poolMappingText(bp *mysql.BufferPool) string {
	if len(bp.Mappings) == 1 {
		m := bp.Mappings[0]
		name := m.Path
		if name == "" {
			name = "anonymous"
		}
		return fmt.Sprintf("%s at %#x (%s) in %s pages (KernelPageSize), %s resident", units.Bytes(m.SizeBytes), m.Start, name, units.Bytes(m.PageSizeBytes), units.Bytes(m.ResidentBytes))
	}
	return fmt.Sprintf("%s in %d mappings, %s pages", units.Bytes(bp.SizeBytes), len(bp.Mappings), units.Bytes(bp.PageSizeBytes))
}

func hugeMappingsText(ms []mysql.MappingInfo) string {
	if len(ms) == 0 {
		return "none"
	}
	s := ""
	for i, m := range ms {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s at %#x", units.Bytes(m.SizeBytes), m.Start)
	}
	return s
}

// checkLargePages is checkHugePagesUsed's word for a MySQL/MariaDB
// server, whose buffer pool is in base pages: large_pages=ON and fallen back
// (only the mappings show it), or a big pool with large_pages=OFF. The
// server maps several large-page areas: its need is its own plan.
func checkLargePages(h host, in instance) []finding.Finding {
	m, bp := in.my, in.my.Memory.BufferPool
	if _, ok := h.DefaultPageSize(); !h.need(in.words.hugeSkipName, in.Subject, have(inHugeSize, ok)) {
		return nil
	}
	plan := in.Huge
	f := finding.Finding{Subject: in.Subject, Evidence: []finding.Evidence{
		in.HugeSetting, in.SharedBuffers,
		ev("buffer pool mapping", poolMappingText(bp), srcServerSmaps),
		ev("mappings in huge pages", hugeMappingsText(m.Memory.HugeMappings), srcServerSmaps),
	}}
	if p, ok := h.DefaultPool(); ok {
		f.Evidence = append(f.Evidence, ev("huge page pool", poolText(p), poolSource(p)))
	}
	f.Evidence = append(f.Evidence, ev("pages needed", planText(plan), "computed"))
	if in.WantsHuge {
		f.ID, f.Severity = "mysql.large_pages_not_used", finding.Warning
		f.Title = fmt.Sprintf("large_pages=ON but the %s buffer pool is in %s pages", units.Bytes(bp.SizeBytes), units.Bytes(bp.PageSizeBytes))
		f.Why = "The server allocates its large-page areas one after the other and falls back to 4 KiB pages, silently, " +
			"for any that no longer fits in the free pool: smaller allocations made first took part of a pool sized for the " +
			"buffer pool alone (measured with MariaDB 10.11.19). The pages reserved for the pool then sit unused, and the " +
			"buffer pool costs page tables and can be swapped."
		f.Fix = fmt.Sprintf("Grow the pool to what every large-page allocation needs (%d pages here) and restart the server.", plan.Pages)
	} else {
		if bp.SizeBytes < HugePagesWorthBytes || bufferPoolTooLarge(m, h.RAM) {
			return nil // small, or too large for the RAM: huge pages are not the answer
		}
		f.ID, f.Severity = "mysql.large_pages_off", finding.Notice
		f.Title = fmt.Sprintf("%s buffer pool in 4 KiB pages: large_pages=OFF", units.Bytes(bp.SizeBytes))
		f.Why = "The buffer pool is touched by every thread of one process: in 4 KiB pages it costs 2 MiB of page table per GiB " +
			"and TLB misses, and it can be swapped; in huge pages it costs 4 KiB per GiB and stays in RAM."
		f.Fix = "Set large_pages=ON with a pool that holds every large-page allocation, then restart."
	}
	f.Settings = mysqlHugeSettings(h, m, plan)
	return []finding.Finding{f}
}

func planText(p HugePageNeed) string {
	s := fmt.Sprintf("%d pages of %s via %s (%s):", p.Pages, units.Bytes(p.PageSizeBytes), p.API, p.APIFrom)
	for _, l := range p.Lines {
		s += " " + l.Name + " " + l.Formula + ";"
	}
	return s
}

// mysqlHugeSettings: the pool (what others hold now + what this server
// needs), large_pages, and for SysV servers the group, memlock and shm limits.
func mysqlHugeSettings(h host, in *mysql.Instance, p HugePageNeed) []finding.Setting {
	pool, havePool := h.DefaultPool()
	var held uint64
	for _, m := range in.Memory.HugeMappings {
		held += units.CeilDiv(m.SizeBytes, p.PageSizeBytes)
	}
	others, current, formula := uint64(0), "", fmt.Sprintf("%d pages this server needs (the pool now is not known)", p.Pages)
	if havePool {
		others, current = units.Sub(hostInUse(pool), held), fmt.Sprint(pool.Total)
		formula = fmt.Sprintf("%d pages in use by others + %d this server needs", others, p.Pages)
	}
	out := []finding.Setting{{Target: finding.TargetSysctl, Name: "vm.nr_hugepages", Value: fmt.Sprint(others + p.Pages),
		Current: current, Restart: "the MySQL/MariaDB server",
		Formula: formula,
		Why:     "every large-page allocation must fit, or the server falls back to 4 KiB pages without an error"}}
	if !in.LargePages() {
		out = append(out, finding.Setting{Target: finding.TargetMySQL, Name: "large_pages", Value: "ON", Current: "OFF",
			Unit: in.Name(), Restart: "the MySQL/MariaDB server", Formula: "[mysqld] large_pages=ON",
			Why: "the server asks for huge pages only with large_pages"})
	}
	if p.SysV != nil {
		out = append(out, sysvMySQLSettings(h, in, p)...)
	}
	return out
}

func sysvMySQLSettings(h host, in *mysql.Instance, p HugePageNeed) []finding.Setting {
	var out []finding.Setting
	sv := p.SysV
	if sv.ShmGroup != nil {
		out = append(out, finding.Setting{Target: finding.TargetSysctl, Name: "vm.hugetlb_shm_group", Value: fmt.Sprint(*sv.ShmGroup),
			Current: h.Sysctls["vm.hugetlb_shm_group"], Formula: "the server's gid",
			Why: "shmget(SHM_HUGETLB) needs this group or CAP_IPC_LOCK (a memlock limit alone is refused on current kernels)"})
	}
	out = append(out, finding.Setting{Target: finding.TargetSystemd, Name: "LimitMEMLOCK", Value: fmt.Sprint(sv.MemlockBytes),
		Unit: unitOf(in), Restart: "the MySQL/MariaDB server",
		Formula: fmt.Sprintf("%d pages x %s", p.Pages, units.Bytes(p.PageSizeBytes)),
		Why:     "MySQL's documentation asks for a memlock limit covering its SHM_HUGETLB segments; limits.conf does not apply to services"})
	if cur, ok := h.Sysctls.Uint("kernel.shmmax"); ok && cur < sv.ShmMaxBytes {
		out = append(out, finding.Setting{Target: finding.TargetSysctl, Name: "kernel.shmmax", Value: fmt.Sprint(sv.ShmMaxBytes),
			Current: fmt.Sprint(cur), Formula: "the largest segment (the buffer pool)", Why: "shmget fails with EINVAL above it"})
	}
	if cur, ok := h.Sysctls.Uint("kernel.shmall"); ok && cur < sv.ShmAllPages {
		out = append(out, finding.Setting{Target: finding.TargetSysctl, Name: "kernel.shmall", Value: fmt.Sprint(sv.ShmAllPages),
			Current: fmt.Sprint(cur), Formula: "sum of ceil(segment / 4 KiB)", Why: "shmget fails with ENOSPC above it"})
	}
	return out
}
