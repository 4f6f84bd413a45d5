package exporter

import (
	"os"
	"strconv"

	"github.com/dbmem/dbmem/internal/enginemem"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/snapshot/sampler"
)

// collectMySQL sends every MySQL/MariaDB server's metrics, each server on
// its own (dbmem_instance_scrape_success{engine="mysql"}).
func collectMySQL(out *sink, s *sampler.Sample, pss smapsResult) {
	keys := make([]instKey, len(s.Snapshot.MySQL))
	for i, in := range s.Snapshot.MySQL {
		keys[i] = instKey{in.Port, in.DataDir, in.PID}
	}
	labels := instanceLabels(keys)
	for i, in := range s.Snapshot.MySQL {
		l := labels[i]
		ok := out.collectInstance(in.Name(), func() {
			collectServer(out, in, s.Snapshot.Host, l)
			if c, found := pss.private[in.PID][""]; found {
				out.gauge(descMyPss, float64(c), l...)
			}
		})
		out.gauge(descInstOK, b2f(ok), with(l, "mysql")...)
		out.gauge(descInstGaps, float64(len(in.Gaps)), with(l, "mysql")...)
	}
}

func collectServer(out *sink, in *mysql.Instance, host linux.Host, l []string) {
	large, _ := in.Settings.String("large_pages")
	out.gauge(descMyInfo, 1, with(l, string(in.Flavor), in.Version, large, strconv.FormatBool(in.Connected))...)
	if mc, ok := in.Settings.Int("max_connections"); ok {
		out.gauge(descMyMaxConn, float64(mc), l...)
	}
	if bp, ok := in.Settings.Bytes("innodb_buffer_pool_size"); ok {
		out.gauge(descMyPool, float64(bp), l...)
	}
	if m := in.Memory.BufferPool; m != nil && m.PageSizeBytes > 0 {
		out.gauge(descMyPoolPage, float64(m.PageSizeBytes), l...)
	}
	var huge uint64
	for _, m := range in.Memory.HugeMappings {
		huge += m.SizeBytes
	}
	out.gauge(descMyHugeMaps, float64(huge), l...)
	if page, ok := host.DefaultPageSize(); ok {
		p := mysql.PlanHugePages(in, page, uint64(os.Getpagesize()))
		out.gauge(descMyHugeNeed, float64(p.Pages), with(l, strconv.FormatUint(page, 10))...)
	}
	collectServerWorstCase(out, in, l)
	collectServerProcess(out, in.Process, l)
}

func collectServerWorstCase(out *sink, in *mysql.Instance, l []string) {
	if _, ok := in.Settings.Int("max_connections"); !ok {
		return // the connections' part is unknown: no partial sum
	}
	wc := mysql.ComputeWorstCase(in)
	conns, _ := wc.Line("connections")
	out.gauge(descMyWorstCase, float64(wc.Sum(enginemem.Global, enginemem.InHugePages)), with(l, "global")...)
	out.gauge(descMyWorstCase, float64(conns.Bytes), with(l, "connections")...)
	if ps, _ := wc.Line("performance_schema"); wc.Measured(ps.Name) {
		out.gauge(descMyWorstCase, float64(ps.Bytes), with(l, "performance_schema")...)
	}
	out.gauge(descMyWorstCase, float64(wc.PageTablesBytes), with(l, "page_tables")...)
}

// collectServerProcess sends the server process's status-based private
// cost and page tables, each only when /proc gave every term.
func collectServerProcess(out *sink, p linux.Process, l []string) {
	st := p.Status
	if st.RssAnonBytes != nil && st.VmPTEBytes != nil && st.VmSwapBytes != nil {
		out.gauge(descMyPrivate, float64(*st.RssAnonBytes+*st.VmPTEBytes+*st.VmSwapBytes), l...)
	}
	if st.VmPTEBytes != nil {
		out.gauge(descMyPTE, float64(*st.VmPTEBytes), l...)
	}
}
