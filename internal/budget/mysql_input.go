package budget

// MySQLInput is what the budget of a MySQL/MariaDB server needs: its host's
// bounds, its settings and what was measured (nil for a what-if).
type MySQLInput struct {
	Subject string `json:"subject"`
	// Engine is "mysql" or "mariadb".
	Engine   string         `json:"engine"`
	Host     Host           `json:"host"`
	Settings MySQLSettings  `json:"settings"`
	Measured *MySQLMeasured `json:"measured,omitempty"`
}

// MySQLSettings are the variables that decide a server's memory outside its
// large-page buffers (the buffer pool and its companions are Host.SharedBytes).
type MySQLSettings struct {
	MaxConnections int `json:"max_connections"`
	// A query allocates these when it needs them, each up to its size.
	SortBufferBytes    uint64 `json:"sort_buffer_size"`
	JoinBufferBytes    uint64 `json:"join_buffer_size"`
	ReadBufferBytes    uint64 `json:"read_buffer_size"`
	ReadRndBufferBytes uint64 `json:"read_rnd_buffer_size"`
	// BinlogCacheBytes is binlog_cache_size, 0 when log_bin is off.
	BinlogCacheBytes uint64 `json:"binlog_cache_size"`
	// Every connection's thread holds these.
	ThreadStackBytes uint64 `json:"thread_stack"`
	NetBufferBytes   uint64 `json:"net_buffer_length"`
	// An implicit in-memory temporary table grows to min(tmp_table_size,
	// max_heap_table_size) before it goes to disk: per table, per query.
	TmpTableBytes     uint64 `json:"tmp_table_size"`
	MaxHeapTableBytes uint64 `json:"max_heap_table_size"`
	// TempTableMaxRAMBytes is MySQL 8's temptable_max_ram: the TempTable
	// engine's RAM for every internal temporary table of the server
	// together; nil where the variable does not exist (MariaDB, MySQL 5.7).
	TempTableMaxRAMBytes *uint64 `json:"temptable_max_ram,omitempty"`
	// TempTableAuto says temptable_max_ram was not read and takes MySQL
	// 8.4's default: 3% of RAM, at least 1 GiB, at most 4 GiB.
	TempTableAuto bool `json:"temptable_max_ram_auto,omitempty"`
	// ConnectionMemoryLimitBytes is MySQL 8.0.28+'s connection_memory_limit
	// (nil where absent, or at its default: no limit); enforced only with
	// global_connection_memory_tracking=ON (ConnectionMemoryTracking), and
	// never for accounts with SYSTEM_VARIABLES_ADMIN (root).
	ConnectionMemoryLimitBytes *uint64 `json:"connection_memory_limit,omitempty"`
	ConnectionMemoryTracking   bool    `json:"global_connection_memory_tracking"`
	// GlobalPrivateBytes are the server's global buffers outside the
	// large-page ones (query cache, performance_schema): private, once.
	GlobalPrivateBytes   uint64 `json:"global_private_bytes"`
	GlobalPrivateFormula string `json:"global_private_formula"`
}

// MySQLMeasured is what a running server showed.
type MySQLMeasured struct {
	// MaxUsedConnections is the status variable Max_used_connections: the
	// most connections open at once since the start; nil when not read (no
	// connection).
	MaxUsedConnections *int `json:"max_used_connections,omitempty"`
	// PerThreadBytes is the server's private memory outside the buffer pool
	// divided by its threads (/proc/PID/smaps_rollup and status): what one
	// connection costs idle, an upper bound; 0 when not measured.
	PerThreadBytes uint64 `json:"per_thread_bytes,omitempty"`
	PerThreadFrom  string `json:"per_thread_from,omitempty"`
	Gaps           []Gap  `json:"gaps,omitempty"`
}
