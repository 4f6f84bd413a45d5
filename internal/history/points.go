package history

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/watch"
)

// Units of series.
const (
	UnitBytes       = "bytes"
	UnitPagesPerSec = "pages/s"
	UnitCount       = "count"
)

// Point is one value of one series at one tick.
type Point struct {
	Name   string
	Labels string
	Unit   string
	Value  float64
}

// PointsOf lists what a frame records: the host numbers, each instance's
// numbers and the huge page pools. A number the frame does not have (not
// read) gets no point: a gap in its series, never a 0.
func PointsOf(f watch.Frame) []Point {
	h := f.Host
	var ps []Point
	add := func(name, labels, unit string, v *uint64) {
		if v != nil {
			ps = append(ps, Point{name, labels, unit, float64(*v)})
		}
	}
	if h.MemAvailableEstimated {
		add("mem_available_estimate_bytes", "", UnitBytes, h.MemAvailableBytes)
	} else {
		add("mem_available_bytes", "", UnitBytes, h.MemAvailableBytes)
	}
	add("mem_total_bytes", "", UnitBytes, h.MemTotalBytes)
	add("page_tables_bytes", "", UnitBytes, h.PageTablesBytes)
	add("committed_as_bytes", "", UnitBytes, h.CommittedASBytes)
	add("commit_limit_bytes", "", UnitBytes, h.CommitLimitBytes)
	add("swap_used_bytes", "", UnitBytes, h.SwapUsedBytes)
	if h.OOMKills != nil {
		ps = append(ps, Point{"oom_kills", "", UnitCount, float64(*h.OOMKills)})
	}
	if h.Rates {
		ps = append(ps, Point{"swap_in_pages_per_sec", "", UnitPagesPerSec, h.SwapInPerSec},
			Point{"swap_out_pages_per_sec", "", UnitPagesPerSec, h.SwapOutPerSec})
	}
	for _, p := range h.HugePages {
		l := "page_size=" + strconv.FormatUint(p.PageSizeBytes, 10)
		ps = append(ps, Point{"huge_pages_in_use", l, UnitCount, float64(p.InUse)},
			Point{"huge_pages_total", l, UnitCount, float64(p.Total)})
	}
	for _, in := range f.Instances {
		ps = append(ps, instancePoints(in)...)
	}
	for _, m := range f.MySQL {
		ps = append(ps, mysqlPoints(m, f.Mode != "status")...)
	}
	return append(ps, growthPoints(f)...)
}

// InstanceLabels names a PostgreSQL instance in series labels:
// "port=5432 data_dir=/var/lib/...", "port=unknown" when it is not known.
func InstanceLabels(port *int, dataDir string) string {
	return fmt.Sprintf("port=%s data_dir=%s", portLabel(port), dataDir)
}

// MySQLLabels names a MySQL or MariaDB server in series labels:
// "engine=mariadb port=3306 data_dir=/var/lib/mysql".
func MySQLLabels(flavor string, port *int, dataDir string) string {
	return fmt.Sprintf("engine=%s port=%s data_dir=%s", flavor, portLabel(port), dataDir)
}

func portLabel(port *int) string {
	if port == nil {
		return "unknown"
	}
	return strconv.Itoa(*port)
}

// mysqlPoints are a server's series. Its private figure goes to one series
// when exact (Pss_Anon) and another when not (RssAnon), so that neither
// jumps; connections only when they were read (a discovery).
func mysqlPoints(m watch.MySQLServer, discovered bool) []Point {
	l := MySQLLabels(m.Flavor, m.Port, m.DataDir)
	var ps []Point
	add := func(name, unit string, v *uint64) {
		if v != nil {
			ps = append(ps, Point{name, l, unit, float64(*v)})
		}
	}
	if m.Threads != nil {
		ps = append(ps, Point{"threads", l, UnitCount, float64(*m.Threads)})
	}
	if m.Connections != nil && discovered {
		ps = append(ps, Point{"connections", l, UnitCount, float64(*m.Connections)})
	}
	if m.PrivateExact {
		add("pss_anon_bytes", UnitBytes, m.PrivateBytes)
	} else {
		add("rss_anon_bytes", UnitBytes, m.PrivateBytes)
	}
	add("vm_pte_bytes", UnitBytes, m.PageTablesBytes)
	return ps
}

func instancePoints(in watch.Instance) []Point {
	l := InstanceLabels(in.Port, in.DataDir)
	ps := []Point{
		{"connections", l, UnitCount, float64(in.Connections)},
		{"processes", l, UnitCount, float64(in.Processes)},
	}
	if v := in.ActiveSessions; v != nil {
		ps = append(ps, Point{"active_sessions", l, UnitCount, float64(*v)})
	}
	if v := in.EstimateBytes; v != nil {
		ps = append(ps, Point{"private_estimate_bytes", l, UnitBytes, float64(*v)})
	}
	if v := in.VmPTEBytes; v != nil {
		ps = append(ps, Point{"vm_pte_bytes", l, UnitBytes, float64(*v)})
	}
	if in.PrivateExact && in.PrivateBytes != nil {
		ps = append(ps, Point{"pss_private_bytes", l, UnitBytes, float64(*in.PrivateBytes)})
	}
	return ps
}
