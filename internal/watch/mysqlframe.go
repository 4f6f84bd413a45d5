package watch

import (
	"os"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// MySQLServer is one mysqld or mariadbd's moving numbers. A field is nil
// (omitted) when it was not read.
type MySQLServer struct {
	PID     int    `json:"pid"`
	Flavor  string `json:"flavor"`            // "mariadb" or "mysql"
	Version string `json:"version,omitempty"` // as the server says, or its mysql_upgrade_info
	// Port is the server's port setting (mysql.Instance.Known); PortSource says
	// where it came from: server, config file, command line or default.
	Port       *int   `json:"port,omitempty"`
	PortSource string `json:"port_source,omitempty"`
	DataDir    string `json:"data_dir,omitempty"`
	// Connected: settings and status were read over SQL at the last
	// discovery; otherwise from the option files and the command line.
	Connected bool `json:"connected"`
	// Threads is the server process's thread count (/proc status, every
	// tick): one per connection plus the server's own.
	Threads *int `json:"threads,omitempty"`
	// Connections is Threads_connected less dbmem's own connection, as of
	// the last discovery (ConnectionsAt); nil when not connected.
	Connections    *int64     `json:"connections,omitempty"`
	ConnectionsAt  *time.Time `json:"connections_at,omitempty"`
	MaxConnections *int64     `json:"max_connections,omitempty"`
	// BufferPoolBytes is innodb_buffer_pool_size.
	BufferPoolBytes *uint64 `json:"buffer_pool_bytes,omitempty"`
	// BufferPoolPageSizeBytes is the page size the kernel uses for the
	// buffer pool's mapping (smaps KernelPageSize), BufferPoolHugetlb
	// whether it is in huge pages; both nil when the mapping was not found
	// or the pool's size (by which it is found) is not known.
	BufferPoolPageSizeBytes *uint64 `json:"buffer_pool_page_size_bytes,omitempty"`
	BufferPoolHugetlb       *bool   `json:"buffer_pool_hugetlb,omitempty"`
	LargePages              *bool   `json:"large_pages,omitempty"` // the large_pages setting
	// LargePageNeedPages is what large_pages=ON needs (or would need) from
	// the host's default huge page pool (mysql.PlanHugePages, as `dbmem
	// report` says it): pages of LargePageSizeBytes.
	LargePageNeedPages *uint64 `json:"large_page_need_pages,omitempty"`
	LargePageNeedBytes *uint64 `json:"large_page_need_bytes,omitempty"`
	LargePageSizeBytes *uint64 `json:"large_page_size_bytes,omitempty"`
	// PrivateBytes is the server process's private memory as `dbmem
	// report` counts it (mysql.Memory): Pss_Anon on a smaps tick
	// (PrivateExact), else RssAnon, an over-estimate. Page tables are apart.
	PrivateBytes *uint64 `json:"private_bytes,omitempty"`
	PrivateExact bool    `json:"private_exact"`
	// PssPrivateBytes is the exact figure from the last smaps tick (PssAt).
	PssPrivateBytes *uint64    `json:"pss_private_bytes,omitempty"`
	PssAt           *time.Time `json:"pss_at,omitempty"`
	PageTablesBytes *uint64    `json:"page_tables_bytes,omitempty"`
	SwapBytes       *uint64    `json:"swap_bytes,omitempty"`
	// Connection says how settings were read, or why not over SQL.
	Connection string `json:"connection"`
}

// mysqlServers makes the MySQL part of a frame. A discovery (mode not
// Status) read each server's status variables anew.
func (w *Watcher) mysqlServers(snap *snapshot.Snapshot, mode sampler.Mode) []MySQLServer {
	if w.exactMySQL == nil {
		w.exactMySQL, w.mysqlRead = map[int]pssCost{}, map[int]time.Time{}
	}
	out := []MySQLServer{}
	for _, in := range snap.MySQL {
		if mode != sampler.Status {
			w.mysqlRead[in.PID] = snap.TakenAt
		}
		m := mysqlServer(in, snap.Host, w.mysqlRead[in.PID], snap.Pss)
		if m.PrivateExact && m.PrivateBytes != nil {
			w.exactMySQL[in.PID] = pssCost{*m.PrivateBytes, snap.TakenAt}
		}
		if e, ok := w.exactMySQL[in.PID]; ok {
			at := e.at
			m.PssPrivateBytes, m.PssAt = new(e.bytes), &at
		}
		out = append(out, m)
	}
	return out
}

// mysqlServer is one server's line; statusAt is when the discovery that
// read its status variables ran.
func mysqlServer(in *mysql.Instance, h linux.Host, statusAt time.Time, pss bool) MySQLServer {
	m := in.Memory
	out := MySQLServer{
		PID: in.PID, Flavor: string(in.Flavor), Version: in.Version, DataDir: in.DataDir, Connected: in.Connected,
		Connection: in.Connection, PrivateBytes: m.PrivateBytes, PrivateExact: m.PrivateExact && pss,
		PageTablesBytes: m.PageTablesBytes, SwapBytes: m.SwapBytes,
	}
	if p, ok := knownInt(in, "port"); ok && p > 0 {
		out.Port, out.PortSource = new(int(p)), string(in.Settings["port"].Source)
	}
	if in.Process.Status.Threads != nil {
		out.Threads = new(*in.Process.Status.Threads)
	}
	if n, ok := in.StatusBytes("threads_connected"); ok && in.Connected && n > 0 && !statusAt.IsZero() {
		out.Connections = new(int64(n) - 1) // dbmem's own connection was one of them
		out.ConnectionsAt = &statusAt
	}
	out.setPool(in, h)
	return out
}

// setPool fills the settings and the buffer pool's mapping and large-page
// need.
func (out *MySQLServer) setPool(in *mysql.Instance, h linux.Host) {
	m := in.Memory
	if v, ok := knownInt(in, "max_connections"); ok {
		out.MaxConnections = &v
	}
	if v, ok := in.Settings.Bytes("innodb_buffer_pool_size"); ok && in.Known("innodb_buffer_pool_size") {
		out.BufferPoolBytes = &v
	}
	// The mapping is recognised by its size: without the size, what was
	// found may be another cache of the same default size.
	if bp := m.BufferPool; bp != nil && bp.PageSizeBytes > 0 && out.BufferPoolBytes != nil {
		out.BufferPoolPageSizeBytes, out.BufferPoolHugetlb = new(bp.PageSizeBytes), new(bp.Hugetlb)
	}
	if v, ok := in.Settings.Bool("large_pages"); ok && in.Known("large_pages") {
		out.LargePages = &v
	}
	if page, ok := h.DefaultPageSize(); ok && out.BufferPoolBytes != nil {
		p := mysql.PlanHugePages(in, page, uint64(os.Getpagesize()))
		out.LargePageNeedPages, out.LargePageNeedBytes, out.LargePageSizeBytes = &p.Pages, new(p.Bytes()), new(page)
	}
}

func knownInt(in *mysql.Instance, name string) (int64, bool) {
	v, ok := in.Settings.Int(name)
	return v, ok && in.Known(name)
}
