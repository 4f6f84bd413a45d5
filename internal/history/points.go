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
	ps = append(ps, Point{"oom_kills", "", UnitCount, float64(h.OOMKills)})
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
	return ps
}

// InstanceLabels names an instance in series labels.
func InstanceLabels(port int, dataDir string) string {
	return fmt.Sprintf("port=%d data_dir=%s", port, dataDir)
}

func instancePoints(in watch.Instance) []Point {
	l := InstanceLabels(in.Port, in.DataDir)
	ps := []Point{
		{"connections", l, UnitCount, float64(in.Connections)},
		{"processes", l, UnitCount, float64(in.Processes)},
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
