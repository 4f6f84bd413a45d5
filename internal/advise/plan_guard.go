package advise

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/units"
)

// guardPool is plan's huge page step, and check's too for strict
// overcommit (host.poolsPlanned): the pool of the instances that get huge
// pages (nil when none does), and the instances with NoHuge set where they
// get none. None gets them whose cache is too large for the RAM (a
// MySQL/MariaDB buffer pool above MySQL's own sizing: the answer is a
// smaller buffer pool, planned instead), and none at all when the pool
// would leave less than MinLeftBeside for the kernel, the page cache and
// every process (a 1 GB VM).
func guardPool(in PlanInput) ([]PlannedInstance, *HugePagePlan) {
	out := append([]PlannedInstance(nil), in.Instances...)
	for i, pi := range out {
		if pi.MySQL == nil {
			continue
		}
		if bp := mysqlBufferPool(pi); bp > 0 && in.Host.RAMBytes > 0 {
			if limit, _, rule := BufferPoolLimit(in.Host.RAMBytes); bp > limit {
				out[i].NoHuge = fmt.Sprintf("its buffer pool (%s) is above MySQL's own sizing for %s of RAM: %s (%s)",
					units.Bytes(bp), units.Bytes(in.Host.RAMBytes), units.Bytes(limit), rule)
			}
		}
	}
	in.Instances = out
	hp, ok := poolFor(in)
	if !ok {
		return out, nil
	}
	pools, _ := poolsAfter(in, &hp)
	if left, min := units.Sub(in.Host.RAMBytes, pools), MinLeftBeside(in.Host.RAMBytes); left < min {
		why := fmt.Sprintf("a pool of %d pages of %s (%s) would leave %s beside the huge pages, under the %s the kernel, the "+
			"page cache and every process need (20%% of RAM, at least 1 GiB)", hp.PoolPages, units.Bytes(hp.PageSizeBytes),
			units.Bytes(hp.PoolBytes), units.Bytes(left), units.Bytes(min))
		for i := range out {
			if out[i].NoHuge == "" {
				out[i].NoHuge = why
			}
		}
		return out, nil
	}
	return out, &hp
}

// poolFor plans the pool of the instances that get huge pages; false when
// none does.
func poolFor(in PlanInput) (HugePagePlan, bool) {
	var with []PlannedInstance
	for _, pi := range in.Instances {
		if pi.NoHuge == "" {
			with = append(with, pi)
		}
	}
	if len(with) == 0 {
		return HugePagePlan{}, false
	}
	return planHugePages(in, with), true
}

// mysqlBufferPool is the server's buffer pool as its worst case counts it.
func mysqlBufferPool(pi PlannedInstance) uint64 {
	l, _ := mysql.WorstCaseIn(pi.MySQL.Server, 0).Line("innodb_buffer_pool_size")
	return l.Bytes
}

// releasePool is the plan when no instance gets huge pages: the pool
// keeps only what others hold, once the instances that hold pages now
// restart without them; notes say why.
func releasePool(in PlanInput, r *PlanResult) []finding.Setting {
	var held uint64
	var whys []string
	for _, pi := range in.Instances {
		held += pi.HeldPages
		whys = append(whys, pi.Subject+": "+pi.NoHuge)
	}
	r.Notes = append(r.Notes, "no huge pages planned: "+strings.Join(units.Unique(whys), "; "))
	p, ok := nowPool(in, in.Options.PageSizeBytes)
	if !ok || p.Total == 0 || in.InContainer {
		return nil
	}
	others := units.Sub(hostInUse(p), held)
	if others >= p.Total {
		return nil
	}
	return []finding.Setting{sysctlSetting("vm.nr_hugepages", u(others), u(p.Total),
		fmt.Sprintf("%d in use by others (the planned instances' %d pages return when they restart without huge pages)", others, held),
		"a pool nothing planned uses is RAM taken from everything else")}
}

// noHugeSettings are an instance's own settings when it gets no huge
// pages: a MySQL/MariaDB buffer pool too large for the RAM lowered to
// MySQL's sizing, large_pages=OFF where it is ON (its pages are released),
// huge_pages=off where PostgreSQL requires them (on would not start
// without the pool).
func noHugeSettings(in PlanInput, pi PlannedInstance) []finding.Setting {
	var out []finding.Setting
	if pi.MySQL != nil {
		if bp, size, formula, ok := lowerBufferPool(in, pi); ok {
			out = append(out, mySetting(pi, "innodb_buffer_pool_size", u(size), formula,
				"leave RAM for the connections, the kernel and the page cache; then plan huge pages again for the smaller buffer pool"))
			out[len(out)-1].Current = u(bp)
		}
		if strings.EqualFold(pi.Current["large_pages"], "ON") || pi.Current["large_pages"] == "1" {
			out = append(out, mySetting(pi, "large_pages", "OFF", "[mysqld] large_pages=OFF: "+pi.NoHuge,
				"no huge pages for this server here; its pages return to the kernel at the restart"))
		}
		return out
	}
	if pi.Engine.Name == finding.EnginePostgres && pi.Current["huge_pages"] == "on" {
		out = append(out, pgSetting(pi.Unit, "huge_pages", "try", "on", "try: "+pi.NoHuge,
			"with huge_pages=on the server would not start without the pool"))
	}
	return out
}

// lowerBufferPool is the buffer pool a plan without huge pages lowers to
// MySQL's own sizing (when it is above it and the user did not ask for a
// size): the pool now, the planned size and its formula.
func lowerBufferPool(in PlanInput, pi PlannedInstance) (now, planned uint64, formula string, ok bool) {
	bp := mysqlBufferPool(pi)
	if pi.MySQL == nil || bp == 0 || pi.Changes["innodb_buffer_pool_size"] != "" {
		return 0, 0, "", false
	}
	limit, size, rule := BufferPoolLimit(in.Host.RAMBytes)
	if bp <= limit {
		return 0, 0, "", false
	}
	return bp, size, fmt.Sprintf("%s of %s RAM (%s), rounded down to 128 MiB", units.Bytes(limit), units.Bytes(in.Host.RAMBytes), rule), true
}
