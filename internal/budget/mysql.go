package budget

import (
	"fmt"
	"math"

	"github.com/dbmem/dbmem/internal/units"
)

// The MySQL budget's constants.
const (
	// MySQLHeadroom is the share above Max_used_connections the proposed
	// max_connections keeps (and at least MySQLHeadroomMin connections).
	MySQLHeadroom    = 0.25
	MySQLHeadroomMin = 10
	// MySQLMinConnections is the least max_connections proposed.
	MySQLMinConnections = 10
)

// myBudget is the working state of one server's budget.
type myBudget struct {
	in MySQLInput
	r  Result
	s  MySQLSettings
	// thread is one connection's idle cost; buffers what its query may
	// allocate; tmpTable one in-memory temporary table.
	thread, buffers, tmpTable uint64
	sessions                  int
}

// MySQL budgets one MySQL/MariaDB server: the limit, the connections'
// threads, the per-thread buffers of the sessions seen at once, the
// in-memory temporary tables counted per query (capped by MySQL 8's
// temptable_max_ram), and the max_connections that fits from
// Max_used_connections and the measured per-thread cost. It is pure.
func MySQL(in MySQLInput) Result {
	if s := &in.Settings; s.TempTableAuto && s.TempTableMaxRAMBytes == nil {
		v := min(max(in.Host.RAMBytes*3/100, 1<<30), 4<<30)
		s.TempTableMaxRAMBytes = &v
	}
	b := &myBudget{in: in, s: in.Settings}
	b.r = Result{Schema: Schema, Subject: in.Subject, Engine: in.Engine, Measured: in.Measured != nil, Peers: []Peer{}}
	l := ComputeLimit(in.Host)
	b.r.LimitBytes, b.r.LimitSource, b.r.LimitFormula, b.r.LimitLines = l.Bytes, l.Source, l.Formula, l.Lines
	b.perConnection()
	b.concurrency()
	b.maxConnections()
	b.total()
	b.r.Peers = []Peer{b.mysqltuner()}
	b.r.Differs = b.differs()
	if m := in.Measured; m != nil {
		b.r.Gaps = append(b.r.Gaps, m.Gaps...)
	}
	return b.r
}

// perConnection: the thread's idle cost (measured, else its stack and
// network buffers), the buffers a query may take, one temporary table.
func (b *myBudget) perConnection() {
	s := b.s
	b.buffers = s.SortBufferBytes + s.JoinBufferBytes + s.ReadBufferBytes + s.ReadRndBufferBytes + s.BinlogCacheBytes
	b.tmpTable = min(s.TmpTableBytes, s.MaxHeapTableBytes)
	b.thread = s.ThreadStackBytes + 2*s.NetBufferBytes
	if m := b.in.Measured; m != nil && m.PerThreadBytes > 0 {
		b.thread = m.PerThreadBytes
		return
	}
	b.r.Gaps = append(b.r.Gaps, Gap{What: "per-thread cost", Why: "not measured: thread_stack + 2 x net_buffer_length assumed",
		Fix: "run dbmem plan as root on the server's host (its /proc/PID/smaps_rollup and status)"})
}

// concurrency is the sessions counted at full buffers: Max_used_connections
// when read, else max_connections.
func (b *myBudget) concurrency() {
	if m := b.in.Measured; m != nil && m.MaxUsedConnections != nil {
		b.sessions = max(*m.MaxUsedConnections, 1)
		b.r.Concurrency, b.r.ConcurrencySource = b.sessions, "Max_used_connections (SHOW GLOBAL STATUS): the most connections open at once since the start"
		return
	}
	b.sessions = max(b.s.MaxConnections, 1)
	b.r.Concurrency, b.r.ConcurrencySource = b.sessions, "max_connections: Max_used_connections not read (no connection, or a what-if)"
	b.r.Gaps = append(b.r.Gaps, Gap{What: "Max_used_connections", Why: "not read: every connection is counted at full buffers",
		Fix: "let dbmem connect (root over the server's socket, or --mysql-defaults-file)"})
}

// tmpTables is what in-memory temporary tables take for n queries: one per
// query (a per-table threshold, not a per-thread buffer: MySQLTuner issue
// 923), all of them together capped by temptable_max_ram where it exists.
func (b *myBudget) tmpTables(n int) (uint64, string) {
	t := uint64(n) * b.tmpTable
	f := fmt.Sprintf("%d queries x %s min(tmp_table_size, max_heap_table_size): one table per query, not per thread", n, units.Bytes(b.tmpTable))
	if c := b.s.TempTableMaxRAMBytes; c != nil && *c < t {
		return *c, f + fmt.Sprintf(", capped by temptable_max_ram %s for the whole server", units.Bytes(*c))
	}
	return t, f
}

// perQuery is one connection's cost when it runs a query: its thread, its
// buffers and, with table, a temporary table; capped by
// connection_memory_limit when it is enforced.
func (b *myBudget) perQuery(table bool) (uint64, string) {
	c := b.thread + b.buffers
	f := fmt.Sprintf("%s thread + %s buffers", units.Bytes(b.thread), units.Bytes(b.buffers))
	if table {
		c += b.tmpTable
		f += fmt.Sprintf(" + %s temporary table", units.Bytes(b.tmpTable))
	}
	if l := b.s.ConnectionMemoryLimitBytes; l != nil && b.s.ConnectionMemoryTracking && *l < c {
		return *l, f + fmt.Sprintf(", capped by connection_memory_limit %s", units.Bytes(*l))
	}
	return c, f
}

// fit is the most connections that fit when every one runs a query at
// once: with a temporary table each, or, past temptable_max_ram, with the
// cap held whole.
func (b *myBudget) fit() (int, string) {
	avail := units.Sub(b.r.LimitBytes, b.s.GlobalPrivateBytes)
	head := fmt.Sprintf("%s limit - %s global", units.Bytes(b.r.LimitBytes), units.Bytes(b.s.GlobalPrivateBytes))
	per, pf := b.perQuery(true)
	n := int(avail / max(per, 1))
	c := b.s.TempTableMaxRAMBytes
	if c == nil || uint64(n)*b.tmpTable <= *c {
		return n, fmt.Sprintf("floor((%s) / (%s)) = %d", head, pf, n)
	}
	per, pf = b.perQuery(false)
	n = int(units.Sub(avail, *c) / max(per, 1))
	return n, fmt.Sprintf("floor((%s - %s temptable_max_ram, held whole) / (%s)) = %d", head, units.Bytes(*c), pf, n)
}

// maxConnections: the proposal is Max_used_connections plus headroom when
// it fits, else fit; on a what-if, max_connections when it fits.
func (b *myBudget) maxConnections() {
	s := &b.s
	fit, f := b.fit()
	want, why := s.MaxConnections, "the connections that fit when every one runs a query at once"
	if m := b.in.Measured; m != nil && m.MaxUsedConnections != nil {
		used := *m.MaxUsedConnections
		want = max(int(math.Ceil(float64(used)*(1+MySQLHeadroom))), used+MySQLHeadroomMin)
		f = fmt.Sprintf("min(max(ceil(%d Max_used_connections x %g), %d + %d) = %d, %s)", used, 1+MySQLHeadroom, used, MySQLHeadroomMin, want, f)
		why = "the most connections seen at once and a margin, where every one of them fits at full buffers"
	}
	if fit < MySQLMinConnections {
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("no max_connections is proposed: %s; not even %d connections fit at full buffers "+
			"(lower the buffers or the per-thread buffers, add RAM, or a pooler such as ProxySQL)", f, MySQLMinConnections))
		return
	}
	v := max(min(want, fit), MySQLMinConnections)
	if fit < want {
		per, _ := b.perQuery(s.TempTableMaxRAMBytes == nil)
		b.r.Notes = append(b.r.Notes, fmt.Sprintf("%d connections asked or seen need %s each at full buffers: only %d fit; lower the per-thread buffers, or add a pooler (ProxySQL)",
			want, units.Bytes(per), fit))
	}
	b.r.Settings = append(b.r.Settings, Setting{Name: "max_connections", Value: fmt.Sprint(v), Current: fmt.Sprint(s.MaxConnections),
		Formula: f, Why: why})
	s.MaxConnections = v
	b.sessions = min(b.sessions, v)
	b.r.Concurrency = b.sessions
}

// total adds the lines at the proposed max_connections.
func (b *myBudget) total() {
	s := b.s
	add := func(name, formula string, v uint64) {
		b.r.Lines = append(b.r.Lines, Line{Name: name, Formula: formula, Bytes: v})
	}
	add("global buffers", units.Or(s.GlobalPrivateFormula, units.Unknown), s.GlobalPrivateBytes)
	how := "thread_stack + 2 x net_buffer_length (not measured)"
	if m := b.in.Measured; m != nil && m.PerThreadBytes > 0 {
		how = m.PerThreadFrom
	}
	add("threads", fmt.Sprintf("%d max_connections x %s (%s)", s.MaxConnections, units.Bytes(b.thread), how), uint64(s.MaxConnections)*b.thread)
	add("per-thread buffers", fmt.Sprintf("%d sessions x %s (sort %s + join %s + read %s + read_rnd %s + binlog cache %s)", b.sessions,
		units.Bytes(b.buffers), units.Bytes(s.SortBufferBytes), units.Bytes(s.JoinBufferBytes), units.Bytes(s.ReadBufferBytes),
		units.Bytes(s.ReadRndBufferBytes), units.Bytes(s.BinlogCacheBytes)), uint64(b.sessions)*b.buffers)
	t, tf := b.tmpTables(b.sessions)
	add("in-memory temporary tables", tf, t)
	b.r.TotalBytes = sumOf(b.r.Lines)
	b.r.Fits = b.r.TotalBytes <= b.r.LimitBytes
}
