package budget

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/units"
)

// mysqltuner is MySQLTuner's "maximum possible memory usage" outside the
// server-wide buffers, from our reading of mysqltuner.pl (sub calculations,
// major/MySQLTuner-perl): per_thread_buffers = read_buffer_size +
// read_rnd_buffer_size + sort_buffer_size + thread_stack + join_buffer_size,
// times max_connections, plus max_tmp_table_size = min(tmp_table_size,
// max_heap_table_size) counted once with the server-wide buffers. Its
// issue 923 records the versions that counted the temporary table per
// thread instead, and asks for temptable_max_ram.
func (b *myBudget) mysqltuner() Peer {
	s, in := b.s, b.in.Settings
	per := s.ReadBufferBytes + s.ReadRndBufferBytes + s.SortBufferBytes + s.ThreadStackBytes + s.JoinBufferBytes
	total := uint64(in.MaxConnections)*per + b.tmpTable + s.GlobalPrivateBytes
	return Peer{Tool: "mysqltuner", Source: "major/MySQLTuner-perl mysqltuner.pl, sub calculations (per_thread_buffers, max_tmp_table_size); issue 923",
		Profile: "current settings",
		Settings: []PeerSetting{
			{Name: "per_thread_buffers", Value: units.Bytes(per), Formula: "read + read_rnd + sort + thread_stack + join"},
			{Name: "max_connections", Value: fmt.Sprint(in.MaxConnections), Formula: "as set: MySQLTuner sizes nothing, it warns above 85% of RAM"},
		},
		TotalBytes: total, Fits: total <= b.r.LimitBytes}
}

// differs says why dbmem's numbers differ from MySQLTuner's.
func (b *myBudget) differs() []string {
	out := []string{
		"in-memory temporary tables are counted per query, not per thread: tmp_table_size is a per-table threshold (MySQLTuner issue 923)",
		"idle connections cost their thread only; the buffers are counted for the sessions seen at once (Max_used_connections)",
	}
	if b.s.TempTableMaxRAMBytes != nil {
		out = append(out, "MySQL 8's TempTable engine keeps every internal temporary table of the server within temptable_max_ram")
	}
	if m := b.in.Measured; m != nil && m.PerThreadBytes > 0 {
		out = append(out, "a thread's idle cost is "+m.PerThreadFrom+", not taken as thread_stack")
	}
	if l := b.s.ConnectionMemoryLimitBytes; l != nil {
		if b.s.ConnectionMemoryTracking {
			out = append(out, fmt.Sprintf("connection_memory_limit %s caps each connection (not accounts with SYSTEM_VARIABLES_ADMIN, such as root)", units.Bytes(*l)))
		} else {
			out = append(out, "connection_memory_limit is set but global_connection_memory_tracking=OFF: it is not enforced and not counted")
		}
	}
	return out
}
