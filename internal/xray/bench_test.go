package xray

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkXRay3 measures what the X-ray of 3 backends adds to a report:
// the call over the verified connection (through dbmem's helper when run
// as root), the wait for the three dumps in the server log (logging
// collector off: the postmaster's stderr, as pg_ctl -l and Debian send
// it; and the collector's csvlog), the read of the log's new lines, and
// each backend's measure and breakdown. Each backend touched 200 tables.
//
//	go test -run '^$' -bench XRay3 -benchtime 20x ./internal/xray
func BenchmarkXRay3(b *testing.B) {
	for _, dest := range []string{"stderr", "csvlog"} {
		b.Run(dest, func(b *testing.B) {
			s := map[string]string{"jit": "off", "shared_buffers": "64MB"}
			if dest == "csvlog" {
				s["logging_collector"], s["log_destination"] = "on", "csvlog"
			}
			c := pgtestStart(b, s)
			var ddl strings.Builder
			for i := 1; i <= 200; i++ {
				fmt.Fprintf(&ddl, "CREATE TABLE t%d (a int PRIMARY KEY);", i)
			}
			pgtestExec(b, c, ddl.String())
			var pids []int
			for range 3 {
				_, pid := backend(b, c, `DO $$ BEGIN FOR i IN 1..200 LOOP EXECUTE format('SELECT * FROM t%s', i); END LOOP; END $$`)
				pids = append(pids, pid)
			}
			conn := connector(c, "")
			in := instance(b, c, conn)
			var wall time.Duration
			for b.Loop() {
				r := Run(context.Background(), in, pids, Options{Caller: conn, Wait: 2 * time.Minute})
				for _, bk := range r.Backends {
					if bk.Breakdown == nil {
						b.Fatalf("pid %d: %s %s", bk.PID, r.Problem, bk.Problem)
					}
				}
				wall += r.Elapsed
			}
			b.ReportMetric(float64(wall.Microseconds())/1000/float64(b.N), "ms/xray")
		})
	}
}
