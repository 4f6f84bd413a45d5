package history

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/watch"
)

// ExtraSep separates an instance's labels from what names a role, a
// backend or an X-ray part within it: "port=5432 data_dir=/d | role=...".
const ExtraSep = " | "

// MaxBackendSeries bounds the backends recorded at each tick: the most
// expensive (long-lived ones stay among them and get long series).
const MaxBackendSeries = 20

// growthPoints are what growth needs: each role's and each expensive
// backend's private cost estimate (RssAnon + VmPTE + VmSwap, read every
// tick), each instance's cgroup, the host's overcommit mode, and the parts
// of X-rays taken.
func growthPoints(f watch.Frame) []Point {
	var ps []Point
	if v := f.Host.OvercommitMemory; v != nil && *v >= 0 {
		ps = append(ps, Point{"overcommit_memory", "", UnitCount, float64(*v)})
	}
	for _, in := range f.Instances {
		l := InstanceLabels(in.Port, in.DataDir)
		if in.CgroupLimitBytes != nil && in.CgroupUsageBytes != nil {
			ps = append(ps, Point{"cgroup_limit_bytes", l, UnitBytes, float64(*in.CgroupLimitBytes)},
				Point{"cgroup_usage_bytes", l, UnitBytes, float64(*in.CgroupUsageBytes)})
		}
	}
	ps = append(ps, rolePoints(f)...)
	ps = append(ps, backendPoints(f)...)
	for _, x := range f.XRays {
		for g, v := range x.Parts {
			l := InstanceLabels(x.Port, dataDirOf(f, x.PostmasterPID)) + ExtraSep + fmt.Sprintf("pid=%d group=%s", x.PID, g)
			ps = append(ps, Point{"xray_part_bytes", l, UnitBytes, float64(v)})
		}
	}
	return ps
}

func rolePoints(f watch.Frame) []Point {
	type key struct{ labels, role string }
	sums := map[key]float64{}
	var order []key
	for _, b := range f.Backends {
		if b.EstimateBytes == nil {
			continue
		}
		k := key{InstanceLabels(b.Port, dataDirOf(f, b.PostmasterPID)), b.Role}
		if _, ok := sums[k]; !ok {
			order = append(order, k)
		}
		sums[k] += float64(*b.EstimateBytes)
	}
	var ps []Point
	for _, k := range order {
		ps = append(ps, Point{"role_private_estimate_bytes", k.labels + ExtraSep + "role=" + k.role, UnitBytes, sums[k]})
	}
	return ps
}

func backendPoints(f watch.Frame) []Point {
	var ps []Point
	for i, b := range f.Backends {
		if i == MaxBackendSeries {
			break
		}
		if b.EstimateBytes == nil {
			continue
		}
		l := InstanceLabels(b.Port, dataDirOf(f, b.PostmasterPID)) + ExtraSep +
			fmt.Sprintf("pid=%d start=%d role=%s user=%s database=%s", b.PID, b.StartTicks, b.Role, b.User, b.Database)
		ps = append(ps, Point{"backend_private_estimate_bytes", l, UnitBytes, float64(*b.EstimateBytes)})
	}
	return ps
}

func dataDirOf(f watch.Frame, postmaster int) string {
	for _, in := range f.Instances {
		if in.PostmasterPID == postmaster {
			return in.DataDir
		}
	}
	return ""
}

// splitExtra splits labels into the instance's and the rest.
func splitExtra(labels string) (instance, extra string) {
	instance, extra, _ = strings.Cut(labels, ExtraSep)
	return instance, extra
}

// extraValue reads key=value from the extra labels (values may hold
// spaces: a value runs to the next " key=").
func extraValue(extra, key string) string {
	i := strings.Index(" "+extra, " "+key+"=")
	if i < 0 {
		return ""
	}
	rest := extra[i+len(key)+1:]
	for _, k := range []string{" pid=", " start=", " role=", " user=", " database=", " group="} {
		if j := strings.Index(rest, k); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest
}
