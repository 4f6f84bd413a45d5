package budget

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/units"
)

// maxConnections keeps max_connections unless the idle backends alone
// take more than ConnectionShare of the limit while far fewer connections
// are used: then it is lowered to twice the most connections seen, never
// below the poolers' server connections. Only a known peak lowers it: the
// connections recorded by `dbmem watch --record`, or the server
// connections the poolers can open (read whole). A snapshot's backends are
// not a peak (taken after a load ended it would refuse the clients when
// the load comes back): with no known peak it is kept. A restart is
// needed.
func (b *pgBudget) maxConnections() {
	s := &b.s
	cur := strconv.Itoa(s.MaxConnections)
	set := Setting{Name: "max_connections", Value: cur, Current: cur, Restart: true}
	idle := sumTerms(b.baselineTerms(s.MaxConnections, s.MaxConnections))
	switch {
	case b.in.Asked["max_connections"]:
		set.Formula, set.Why, set.Asked = cur+" (asked for)", "the planned configuration", true
	case b.in.Measured == nil:
		set.Formula, set.Why = cur+" (kept)", "nothing measured says how many connections are used"
	default:
		set = b.lowerConnections(set, idle)
	}
	set.Evidence = append(set.Evidence, Evidence{Name: "idle backends", Value: fmt.Sprintf("%d connections at their baseline = %s (%s of the limit)",
		s.MaxConnections, units.Bytes(idle), units.Percent(idle, b.r.LimitBytes)), Source: "budget"})
	b.r.Settings = append(b.r.Settings, set)
}

// knownPeak is the most connections known to be used: recorded, or the
// server connections the poolers open; 0 when neither is known.
func (b *pgBudget) knownPeak() (recorded, pools int, ev []Evidence) {
	m := b.in.Measured
	if h := m.HistoryPeakConnections; h != nil && *h > 0 {
		recorded = *h
		ev = append(ev, Evidence{Name: "connections recorded", Value: strconv.Itoa(*h), Source: m.HistoryFrom})
	}
	if p := b.in.Pools; p != nil && p.Known && p.MaxServerConnections > 0 {
		pools = p.MaxServerConnections
		ev = append(ev, Evidence{Name: "poolers' server connections", Value: strconv.Itoa(pools), Source: p.Formula})
	}
	return recorded, pools, ev
}

func (b *pgBudget) lowerConnections(set Setting, idle uint64) Setting {
	s := &b.s
	m := b.in.Measured
	recorded, pools, ev := b.knownPeak()
	set.Evidence = append(set.Evidence, Evidence{Name: "client backends now", Value: strconv.Itoa(m.Backends), Source: m.ActiveFrom})
	set.Evidence = append(set.Evidence, ev...)
	share := float64(idle) / float64(max(b.r.LimitBytes, 1))
	if share <= ConnectionShare {
		set.Formula = set.Value + " (kept)"
		set.Why = fmt.Sprintf("idle backends take %.0f%% of the limit (lowered past %.0f%% only)", share*100, ConnectionShare*100)
		return set
	}
	if recorded == 0 && pools == 0 {
		set.Formula = set.Value + " (kept: the peak of connections is unknown)"
		set.Why = fmt.Sprintf("idle backends take %.0f%% of the limit, but %d backends now are not a peak and nothing recorded one: "+
			"record it (dbmem watch --record, then --history) or read the pooler, before lowering", share*100, m.Backends)
		return set
	}
	used, from := m.Backends, "client backends now"
	if recorded > used {
		used, from = recorded, "connections recorded"
	}
	want := ceilInt(max(2*used, s.SuperuserReserved+10), 10)
	poolText := ""
	if pools > 0 {
		poolText = fmt.Sprintf(", at least the %d server connections the poolers open + %d reserved", pools, s.SuperuserReserved)
		want = max(want, ceilInt(pools+s.SuperuserReserved, 10))
	}
	if want >= s.MaxConnections {
		set.Formula = set.Value + " (kept)"
		set.Why = fmt.Sprintf("idle backends take %.0f%% of the limit (lowered past %.0f%% only), %d used (%s)", share*100, ConnectionShare*100, used, from)
		return set
	}
	set.Value = strconv.Itoa(want)
	set.Formula = fmt.Sprintf("2 x %d used (%s), at least %d superuser_reserved_connections + 10%s, rounded up to 10 = %d", used, from, s.SuperuserReserved, poolText, want)
	set.Why = fmt.Sprintf("%d idle backends would take %.0f%% of the limit; a connection pooler in front keeps the clients", s.MaxConnections, share*100)
	s.MaxConnections = want
	return set
}

func ceilInt(v, step int) int { return (v + step - 1) / step * step }

// companions are the settings beside work_mem, and their lines.
func (b *pgBudget) companions() {
	b.hashMem()
	b.maintenance()
	b.autovacuum()
	b.parallelWorkers()
	b.tempBuffers()
	b.jit()
}

func (b *pgBudget) hashMem() {
	hm := b.s.HashMemMultiplier
	if hm < 1 {
		hm = 1
	}
	v := strconv.FormatFloat(hm, 'f', -1, 64)
	if hm == float64(int(hm)) {
		v = strconv.FormatFloat(hm, 'f', 1, 64)
	}
	why := "hash nodes get work_mem x hash_mem_multiplier, counted in every active query"
	formula := v + " (kept)"
	if b.in.Major > 0 && b.in.Major < 15 && hm == 1 {
		formula = v + " (kept: PostgreSQL 13-14's default, 2.0 from 15)"
		why = "a hash node gets work_mem alone"
	}
	b.r.Settings = append(b.r.Settings, Setting{Name: "hash_mem_multiplier", Value: v, Current: v, Formula: formula, Why: why})
	b.factor = float64(b.nodes-1) + hm
}

// maintenance: the limit / 16, at least PostgreSQL's 64 MiB, at most 2
// GiB; one maintenance command at a time is budgeted.
func (b *pgBudget) maintenance() {
	cur := b.s.MaintenanceWorkMemBytes
	set := Setting{Name: "maintenance_work_mem", Current: units.PG(cur), Why: "VACUUM, CREATE INDEX, ALTER TABLE ADD FOREIGN KEY: one at a time is budgeted"}
	if b.in.Asked["maintenance_work_mem"] {
		set.Value, set.Formula, set.Asked = units.PG(cur), units.PG(cur)+" (asked for)", true
	} else {
		v := floorSetting(clamp(uint64(float64(b.r.LimitBytes)*MaintenanceShare), defaultMaintenance, maxMaintenance), defaultMaintenance)
		b.s.MaintenanceWorkMemBytes = v
		set.Value = units.PG(v)
		set.Formula = fmt.Sprintf("%s limit / 16, between 64MB and 2GB = %s", units.Bytes(b.r.LimitBytes), units.PG(v))
	}
	b.r.Settings = append(b.r.Settings, set)
	b.fixed = append(b.fixed, Line{Name: "maintenance", Bytes: b.s.MaintenanceWorkMemBytes,
		Formula: "1 x " + units.PG(b.s.MaintenanceWorkMemBytes) + " maintenance_work_mem"})
}

// autovacuum: the workers share what one maintenance command gets (the
// limit / 16), at least 64 MiB each, at most maintenance_work_mem; before
// PostgreSQL 17 at most 1 GB (its dead-tuple array's cap).
func (b *pgBudget) autovacuum() {
	s := &b.s
	workers := max(s.AutovacuumMaxWorkers, 1)
	cur := "-1"
	if s.AutovacuumWorkMemBytes != nil {
		cur = units.PG(*s.AutovacuumWorkMemBytes)
	}
	set := Setting{Name: "autovacuum_work_mem", Current: cur, Why: fmt.Sprintf("each of the %d autovacuum workers may use it at once", s.AutovacuumMaxWorkers)}
	if b.in.Asked["autovacuum_work_mem"] && s.AutovacuumWorkMemBytes != nil {
		set.Value, set.Formula, set.Asked = cur, cur+" (asked for)", true
	} else {
		share := uint64(float64(b.r.LimitBytes)*MaintenanceShare) / uint64(workers)
		v := floorSetting(clamp(share, min(defaultMaintenance, s.MaintenanceWorkMemBytes), s.MaintenanceWorkMemBytes), minWorkMem)
		set.Formula = fmt.Sprintf("%s limit / 16 / %d workers, at least 64MB, at most maintenance_work_mem", units.Bytes(b.r.LimitBytes), workers)
		if b.in.Major > 0 && b.in.Major < 17 && v > vacuumCap {
			v, set.Formula = vacuumCap, set.Formula+", at most 1GB before PostgreSQL 17"
		}
		s.AutovacuumWorkMemBytes = &v
		set.Value = units.PG(v)
		set.Formula += " = " + set.Value
	}
	b.r.Settings = append(b.r.Settings, set)
	per := *s.AutovacuumWorkMemBytes
	b.fixed = append(b.fixed, Line{Name: "autovacuum", Bytes: uint64(s.AutovacuumMaxWorkers) * per,
		Formula: fmt.Sprintf("%d autovacuum_max_workers x %s", s.AutovacuumMaxWorkers, units.PG(per))})
}
