package advise

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/units"
)

// MySQLBudgetInput is what budget.MySQL needs of a server: its settings and,
// for a running server, what was measured (Max_used_connections, its
// private memory outside the buffer pool per thread). The host's bounds are
// the plan's (planMySQLBudget). It is pure.
func MySQLBudgetInput(in *mysql.Instance, measured bool) *budget.MySQLInput {
	s := in.Settings
	b := func(name string) uint64 { v, _ := s.Bytes(name); return v }
	set := budget.MySQLSettings{SortBufferBytes: b("sort_buffer_size"), JoinBufferBytes: b("join_buffer_size"),
		ReadBufferBytes: b("read_buffer_size"), ReadRndBufferBytes: b("read_rnd_buffer_size"), ThreadStackBytes: b("thread_stack"),
		NetBufferBytes: b("net_buffer_length"), TmpTableBytes: b("tmp_table_size"), MaxHeapTableBytes: b("max_heap_table_size")}
	if n, ok := s.Int("max_connections"); ok {
		set.MaxConnections = int(n)
	}
	if on, _ := s.Bool("log_bin"); on {
		set.BinlogCacheBytes = b("binlog_cache_size")
	}
	set.TempTableMaxRAMBytes, set.TempTableAuto = tempTableMaxRAM(in)
	if v, ok := s.Bytes("connection_memory_limit"); ok && v < 1<<62 {
		set.ConnectionMemoryLimitBytes = &v
		set.ConnectionMemoryTracking, _ = s.Bool("global_connection_memory_tracking")
	}
	set.GlobalPrivateBytes, set.GlobalPrivateFormula = globalPrivate(mysql.WorstCaseIn(in, 0))
	out := &budget.MySQLInput{Subject: MySQLSubject(in), Engine: MySQLEngine(in).Name, Settings: set}
	if measured {
		out.Measured = mysqlMeasured(in)
	}
	return out
}

// globalPrivate are the worst case's global lines that are not large-page
// buffers, and performance_schema: private memory allocated once.
func globalPrivate(wc WorstCase) (uint64, string) {
	var t uint64
	var parts []string
	for _, l := range wc.Lines {
		switch {
		case l.Name == "performance_schema" && !wc.Measured(l.Name):
			parts = append(parts, "performance_schema unknown (ON, not measured: counted as nothing)")
		case l.Scope == enginemem.Global && !largeBuffer(l.Name) || l.Name == "performance_schema":
			t += l.Bytes
			parts = append(parts, fmt.Sprintf("%s %s", l.Name, units.Bytes(l.Bytes)))
		}
	}
	if len(parts) == 0 {
		return 0, "none"
	}
	return t, strings.Join(parts, " + ")
}

func largeBuffer(name string) bool {
	for _, v := range mysql.LargePageVariables(mysql.MariaDB) {
		if v.Formula == name {
			return true
		}
	}
	return name == "innodb_buffer_pool_size"
}

// mysqlMeasured reads what the running server showed.
func mysqlMeasured(in *mysql.Instance) *budget.MySQLMeasured {
	m := &budget.MySQLMeasured{}
	if n, ok := in.StatusBytes("max_used_connections"); ok {
		m.MaxUsedConnections = new(int(n))
	}
	if p := in.Memory.PerThreadBytes; p != nil && *p > 0 {
		m.PerThreadBytes = *p
		m.PerThreadFrom = fmt.Sprintf("measured: private memory outside the buffer pool / %d threads (/proc/PID/smaps_rollup, status)", in.Memory.Threads)
	}
	return m
}

// planMySQLBudget budgets the one MySQL/MariaDB server of a plan that has
// no PostgreSQL budget, with the host's limits as the plan leaves them: its
// large-page buffers are its shared memory, in the pool or not.
func planMySQLBudget(in PlanInput, hp *HugePagePlan, r *PlanResult) []PlannedInstance {
	var idx []int
	for i, pi := range in.Instances {
		if pi.MySQLBudget != nil && pi.Untrusted == "" {
			idx = append(idx, i)
		}
	}
	if r.Budget != nil || len(idx) != 1 {
		switch {
		case len(idx) > 1:
			r.Notes = append(r.Notes, fmt.Sprintf("%d MySQL/MariaDB servers: the budget of each needs a plan of its own (dbmem plan --mysql-port N)", len(idx)))
		case len(idx) == 1:
			r.Notes = append(r.Notes, fmt.Sprintf("%s has no budget in this plan: a plan budgets one database server, here %s; "+
				"its own budget: dbmem plan --mysql-port %s", in.Instances[idx[0]].Subject, r.Budget.Subject, mysqlPort(in.Instances[idx[0]])))
		}
		return in.Instances
	}
	out := append([]PlannedInstance(nil), in.Instances...)
	pi := &out[idx[0]]
	bi := *pi.MySQLBudget
	bi.Host = budgetHost(in, *pi, hp, r, bi.Host)
	if now, size, _, ok := lowerBufferPool(in, *pi); ok && pi.NoHuge != "" {
		bi.Host.SharedBytes -= min(bi.Host.SharedBytes, now-size) // the plan lowers it: budget what is left beside the planned pool
	}
	res := budget.MySQL(bi)
	r.Settings = append(r.Settings, forInstance(*pi, mysqlBudgetSettings(in, *pi, res))...)
	pi.MySQL = withSettings(pi.MySQL, res)
	if pi.NoHuge != "" {
		hp = nil
	}
	wc := mysqlWorstCase(pi.MySQL, hp)
	res.WorstCase = budget.WorstCase{Bytes: wc.PrivateBytes + wc.PageTablesBytes,
		Formula: worstSum(wc) + fmt.Sprintf(": %s private + %s page tables", units.Bytes(wc.PrivateBytes), units.Bytes(wc.PageTablesBytes)),
		Why:     "every one of max_connections running a query with every buffer at its size and its temporary table at once; nothing in the server caps it"}
	r.Budget = &res
	return out
}

// withSettings is the server at the budget's settings, for the planned
// worst case.
func withSettings(m *MySQLPlanned, res budget.Result) *MySQLPlanned {
	view := *m.Server
	view.Settings = mysql.Settings{}
	for k, v := range m.Server.Settings {
		view.Settings[k] = v
	}
	for _, s := range res.Settings {
		view.Settings[s.Name] = mysql.Setting{Value: s.Value, Source: mysql.FromCommandLine}
	}
	return &MySQLPlanned{Flavor: m.Flavor, Server: &view}
}

// mysqlBudgetSettings are the budget's settings as the plan's: every one on
// a what-if, those that change on a running server. max_connections is
// dynamic: SET GLOBAL, no restart.
func mysqlBudgetSettings(in PlanInput, pi PlannedInstance, res budget.Result) []finding.Setting {
	var out []finding.Setting
	for _, s := range res.Settings {
		if in.Host.Now != nil && s.Value == s.Current {
			continue
		}
		out = append(out, finding.Setting{Target: finding.TargetMySQL, Name: s.Name, Value: s.Value, Current: s.Current, Unit: pi.Unit,
			Formula: s.Formula, Why: s.Why})
	}
	return out
}

// tempTableMaxRAM is MySQL 8's temptable_max_ram as read, else its
// version's default: 1 GiB in 8.0 to 8.3, 3% of RAM (1 to 4 GiB) from 8.4
// (auto); nil on MariaDB and MySQL 5.7, which have no TempTable engine.
func tempTableMaxRAM(in *mysql.Instance) (*uint64, bool) {
	if in.Flavor == mysql.MariaDB || in.Major > 0 && in.Major < 8 {
		return nil, false
	}
	if v, ok := in.Settings.Bytes("temptable_max_ram"); ok {
		return &v, false
	}
	if in.Major > 8 || in.Major == 8 && in.Minor >= 4 {
		return nil, true
	}
	return new(uint64(1 << 30)), false
}

// mysqlPort is the server's port for a command line, or N when unknown.
func mysqlPort(pi PlannedInstance) string {
	if pi.MySQL != nil && pi.MySQL.Server != nil && pi.MySQL.Server.Port > 0 {
		return fmt.Sprint(pi.MySQL.Server.Port)
	}
	return "N"
}
