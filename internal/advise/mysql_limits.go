package advise

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/units"
)

// mysqlWorstCaseNotice: a worst case above this share of RAM is reported.
const mysqlWorstCaseNotice = 0.8

// unitOf names the server's systemd unit for LimitMEMLOCK=.
func unitOf(in *mysql.Instance) string {
	if in.Cgroup != nil && in.Cgroup.Unit != "" {
		return in.Cgroup.Unit
	}
	return "the server's unit (mariadb.service or mysql.service)"
}

// BufferPoolLimit is the largest innodb_buffer_pool_size that fits a host
// of ram bytes, by MySQL's own sizing for a dedicated server
// (innodb_dedicated_server: 50% of RAM up to 4 GiB, 75% above; below 1 GiB
// it picks the 128 MiB default, which is a default, not a bound, so 50%
// applies there too), and the size to advise: the limit rounded down to
// 128 MiB, at least 128 MiB.
func BufferPoolLimit(ram uint64) (limit, advise uint64, rule string) {
	share, rule := 0.75, "innodb_dedicated_server: 75% of RAM above 4 GiB"
	if ram <= 4*GiB {
		share, rule = 0.50, "innodb_dedicated_server: 50% of RAM up to 4 GiB; its 128 MiB below 1 GiB is a default, not a bound"
	}
	limit = uint64(float64(ram) * share)
	return limit, max(limit/(128*MiB)*(128*MiB), 128*MiB), rule
}

// checkMySQLBufferPool: a buffer pool larger than MySQL's own sizing for
// the RAM leaves too little for the connections, the OS and the page
// cache; huge pages for it would make it worse (checkMySQLLargePages
// then keeps quiet, and plan sizes no pool for it).
func checkMySQLBufferPool(h host, in *mysql.Instance) []finding.Finding {
	const id = "mysql.buffer_pool_too_large"
	if !h.need(id, MySQLSubject(in), known(inMemTotal, h.Meminfo.MemTotalBytes)) {
		return nil
	}
	bp, ok := in.Settings.Bytes("innodb_buffer_pool_size")
	limit, size, rule := BufferPoolLimit(h.RAM)
	if !ok || bp <= limit {
		return nil
	}
	return []finding.Finding{{ID: id, Severity: finding.Warning, Subject: MySQLSubject(in),
		Title: fmt.Sprintf("innodb_buffer_pool_size %s is %s of %s RAM: above MySQL's own sizing (%s)", units.Bytes(bp),
			units.Percent(bp, h.RAM), units.Bytes(h.RAM), units.Bytes(limit)),
		Evidence: []finding.Evidence{mysqlEvidence(in, "innodb_buffer_pool_size"), ev("MemTotal", units.Bytes(h.RAM), srcMeminfo),
			ev("MySQL's sizing", units.Bytes(limit)+" ("+rule+")", "MySQL reference manual")},
		Why: "What the buffer pool takes is missing for every connection's buffers, the kernel and the page cache: the server is " +
			"OOM-killed or swaps as connections grow. Huge pages for it would make it worse: a pool is never reclaimed nor swapped.",
		Fix: fmt.Sprintf("Lower innodb_buffer_pool_size to %s or less (less again where other software runs beside it), or add RAM; "+
			"plan huge pages only for the smaller buffer pool.", units.Bytes(size)),
		Settings: []finding.Setting{{Target: finding.TargetMySQL, Name: "innodb_buffer_pool_size", Value: u(size), Current: u(bp), Unit: MySQLUnit(in),
			Restart: MySQLUnit(in), Formula: fmt.Sprintf("%s of %s RAM (%s), rounded down to 128 MiB", units.Bytes(limit), units.Bytes(h.RAM), rule),
			Why: "leave RAM for the connections, the kernel and the page cache"}},
	}}
}

// bufferPoolTooLarge reports whether the server's buffer pool exceeds
// BufferPoolLimit for ram.
func bufferPoolTooLarge(in *mysql.Instance, ram uint64) bool {
	bp, ok := in.Settings.Bytes("innodb_buffer_pool_size")
	limit, _, _ := BufferPoolLimit(ram)
	return ok && ram > 0 && bp > limit
}
