package advise

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/units"
)

// MySQLPlanned is what a MySQL/MariaDB server brings to a plan besides
// its need (PlannedInstance.Need: its large-page allocations with their own
// margin, how it maps them): the server, whose worst case the plan computes
// in the planned pages.
type MySQLPlanned struct {
	Flavor mysql.Flavor    `json:"flavor"`
	Server *mysql.Instance `json:"-"`
}

// PlanMySQL describes a MySQL/MariaDB server for Plan, its need counted in
// pages of pageSize (basePage: the small page, for kernel.shmall). in may
// be a running server (its measured mappings count) or one built from
// settings (a what-if, or a running server with planned changes). It is
// pure.
func PlanMySQL(in *mysql.Instance, pageSize, basePage uint64) PlannedInstance {
	hp := mysql.PlanHugePages(in, pageSize, basePage)
	pi := PlannedInstance{
		Engine:  MySQLEngine(in),
		Subject: MySQLSubject(in), Unit: in.Unit, NoUnit: in.NoUnit, GID: -1,
		Current: map[string]string{"large_pages": settingOrEmpty(in.Settings, "large_pages")},
		Need:    hp,
		MySQL:   &MySQLPlanned{Flavor: in.Flavor, Server: in},
		// A running server's measures count; a what-if has no process.
		MySQLBudget: MySQLBudgetInput(in, in.PID > 0),
	}
	pi.Need.Source = MySQLSubject(in) + ": " + MySQLNeedSource(hp)
	if in.Creds != nil {
		pi.GID = int(in.Creds.GID)
	}
	var heldBytes uint64
	for _, m := range in.Memory.HugeMappings {
		if m.PageSizeBytes == pageSize {
			pi.HeldPages += units.CeilDiv(m.SizeBytes, pageSize)
			heldBytes += m.SizeBytes
		}
	}
	pi.SharedIn4KBytes = units.Sub(hp.SharedBytes, heldBytes)
	return pi
}

// MySQLEngine is the server's engine and version.
func MySQLEngine(in *mysql.Instance) Engine {
	name := finding.EngineMySQL
	if in.Flavor == mysql.MariaDB {
		name = finding.EngineMariaDB
	}
	return Engine{Name: name, Major: in.Major, Minor: in.Minor}
}

// mysqlRestart is what restarts the server: its unit, or the server
// itself when no unit runs it (mysql.RunningUnit).
func mysqlRestart(in *mysql.Instance) string {
	return units.Or(in.Unit, "the MySQL/MariaDB server")
}

func settingOrEmpty(s mysql.Settings, name string) string {
	v, _ := s.String(name)
	return v
}

// MySQLNeedSource lists the allocations a MySQL/MariaDB need counts:
// "buffer pool 72 + log buffer 8 + ... + own margin 21, ...".
func MySQLNeedSource(p HugePageNeed) string {
	var parts []string
	for _, l := range p.Lines {
		if l.Name == "margin" {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %d", l.Name, units.CeilDiv(l.Bytes, max(p.PageSizeBytes, 1))))
	}
	s := fmt.Sprintf("%s + own margin %d, max(%d%%, %s): smaller buffers take their pages first, "+
		"and a buffer pool that no longer fits falls back to 4 KiB pages silently",
		strings.Join(parts, " + "), p.OwnMarginPages, mysql.MarginPercent, units.Bytes(mysql.MarginMinBytes))
	if len(p.Smaller) > 0 {
		var names []string
		for _, l := range p.Smaller {
			names = append(names, fmt.Sprintf("%s (%s)", l.Name, units.Bytes(l.Bytes)))
		}
		s += fmt.Sprintf("; %s below one %s page: MariaDB maps them in a smaller page size, not from this pool",
			strings.Join(names, ", "), units.Bytes(p.PageSizeBytes))
	}
	return s
}

// mysqlSettings are large_pages and the settings asked for (what-if).
func mysqlSettings(pi PlannedInstance, hp *HugePagePlan) []finding.Setting {
	var out []finding.Setting
	for _, name := range sortedKeys(pi.Changes) {
		out = append(out, mySetting(pi, name, pi.Changes[name], pi.Changes[name]+" (asked for)",
			"the planned configuration the pool is sized for"))
	}
	if hp == nil {
		return out
	}
	api := pi.Need
	formula := "[mysqld] large_pages=ON; " + api.APIFrom
	if api.API == HugeMmap {
		formula += ": MAP_HUGETLB needs only free pages in the pool, so no vm.hugetlb_shm_group, LimitMEMLOCK or kernel.shmmax/shmall"
	} else {
		formula += ": SHM_HUGETLB also needs vm.hugetlb_shm_group, LimitMEMLOCK and kernel.shmmax/shmall"
	}
	return append(out, mySetting(pi, "large_pages", "ON", formula,
		"the server asks for huge pages only with large_pages; a buffer that does not fit in the pool falls back to 4 KiB pages "+
			"without an error, so check the mappings after the restart (dbmem report)"))
}

func mySetting(pi PlannedInstance, name, value, formula, why string) finding.Setting {
	return finding.Setting{Target: finding.TargetMySQL, Name: name, Value: value, Current: pi.Current[name], Unit: pi.Unit,
		Formula: formula, Why: why, Restart: pi.Unit}
}

// shmSettings raise kernel.shmmax and kernel.shmall where they are below
// what the server's SHM_HUGETLB segments need; on a what-if host, a note.
func shmSettings(in PlanInput, pi PlannedInstance, r *PlanResult) []finding.Setting {
	p := pi.Need.SysV
	if p == nil {
		return nil
	}
	if in.Host.Now == nil {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: kernel.shmmax must be at least %d (%s, the largest segment) and kernel.shmall at least %d pages: "+
			"the kernel's defaults are far larger; check the host's values", pi.Subject, p.ShmMaxBytes, units.Bytes(p.ShmMaxBytes), p.ShmAllPages))
		return nil
	}
	var out []finding.Setting
	if cur, ok := in.Host.Now.Sysctls.Uint("kernel.shmmax"); ok && cur < p.ShmMaxBytes {
		out = append(out, sysctlSetting("kernel.shmmax", u(p.ShmMaxBytes), u(cur),
			fmt.Sprintf("the largest segment: %s (the buffer pool, counted whole)", units.Bytes(p.ShmMaxBytes)),
			"shmget fails with EINVAL for a segment above it, and the server falls back to 4 KiB pages"))
	}
	if cur, ok := in.Host.Now.Sysctls.Uint("kernel.shmall"); ok && cur < p.ShmAllPages {
		out = append(out, sysctlSetting("kernel.shmall", u(p.ShmAllPages), u(cur),
			fmt.Sprintf("sum of ceil(segment / 4 KiB) = %d pages", p.ShmAllPages),
			"shmget fails with ENOSPC once all segments together pass it"))
	}
	return out
}

// mysqlWorstCase is the server's worst case under the plan: its
// large-page buffers in the planned huge pages (hp set) or in 4 KiB pages.
func mysqlWorstCase(m *MySQLPlanned, hp *HugePagePlan) WorstCase {
	if hp == nil {
		return mysql.WorstCaseIn(m.Server, 0)
	}
	return mysql.WorstCaseIn(m.Server, hp.PageSizeBytes)
}
