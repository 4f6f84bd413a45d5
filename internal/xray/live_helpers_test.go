package xray

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/measure"
	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// connector reaches only the test cluster (its port), through dbmem's
// helper as the cluster's owner when the tests run as root.
func connector(c *pgcluster.Cluster, user string) postgres.Connector {
	return postgres.Connector{Options: postgres.ConnOptions{Port: c.Port, User: user, Timeout: time.Minute}, Helper: postgres.NewHelper()}
}

// instance discovers the test cluster as dbmem report does (exact private
// cost) and returns its instance, connected.
func instance(t testing.TB, c *pgcluster.Cluster, conn postgres.Connector) *postgres.Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ins, _, err := postgres.Discover(ctx, linux.DefaultFS(), postgres.Options{Live: conn, Method: measure.Auto})
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		if in.PostmasterPID == c.PID {
			if !in.Connected {
				t.Fatalf("not connected to the test cluster: %s", in.Connection)
			}
			return in
		}
	}
	t.Fatalf("the test cluster (postmaster %d) was not found", c.PID)
	return nil
}

// backend opens a connection that stays open until the test ends and
// returns it with its backend's PID.
func backend(t testing.TB, c *pgcluster.Cluster, sqls ...string) (*pgx.Conn, int) {
	t.Helper()
	conn := pgtest.Connect(t, c)
	ctx := context.Background()
	for _, s := range sqls {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%.80s: %v", s, err)
		}
	}
	return conn, int(conn.PgConn().PID())
}

// xrayOne X-rays one backend of the cluster, waiting up to two minutes.
func xrayOne(t *testing.T, c *pgcluster.Cluster, pid int) (Result, Backend) {
	t.Helper()
	conn := connector(c, "")
	in := instance(t, c, conn)
	r := Run(context.Background(), in, []int{pid}, Options{Caller: conn, Wait: 2 * time.Minute})
	if r.Problem != "" || len(r.Backends) != 1 {
		t.Fatalf("X-ray: %s (%s); log %+v", r.Problem, r.Fix, r.Log)
	}
	b := r.Backends[0]
	if b.Breakdown == nil {
		t.Fatalf("backend %d: no breakdown: %s (log %+v, notes %v)", pid, b.Problem, r.Log, r.LogNotes)
	}
	return r, b
}

// part returns a group's part of a breakdown.
func part(br *Breakdown, g Group) Part {
	for _, p := range br.Parts {
		if p.Group == g {
			return p
		}
	}
	return Part{}
}

// checkAddsUp asserts the parts add up to the private cost (less what was
// never touched) and describes the breakdown in the test log.
func checkAddsUp(t *testing.T, b Backend) {
	t.Helper()
	br := b.Breakdown
	var sum uint64
	var desc []string
	for _, p := range br.Parts {
		sum += p.Bytes
		desc = append(desc, fmt.Sprintf("%s %d", p.Group, p.Bytes))
	}
	if sum-br.Reconcile.UntouchedBytes != br.PrivateBytes {
		t.Errorf("parts add up to %d - %d untouched, private cost is %d", sum, br.Reconcile.UntouchedBytes, br.PrivateBytes)
	}
	for _, c := range br.Largest {
		t.Logf("  %s %d %d %s", c.Name, c.TotalBytes, c.UsedBytes, c.Group)
	}
	t.Logf("pid %d private %d: %s; used/anon %.2f total/anon %.2f; largest %s", b.PID, br.PrivateBytes, strings.Join(desc, ", "),
		br.Reconcile.UsedRatio, br.Reconcile.TotalRatio, br.Largest[0].Name)
}

func pgtestStart(t testing.TB, settings map[string]string) *pgcluster.Cluster {
	t.Helper()
	return pgtest.Start(t, settings)
}

func execOrFail(t *testing.T, c *pgcluster.Cluster, sqls ...string) {
	t.Helper()
	pgtest.Exec(t, c, sqls...)
}

func pgtestExec(t testing.TB, c *pgcluster.Cluster, sqls ...string) {
	t.Helper()
	pgtest.Exec(t, c, sqls...)
}

// checkBand asserts the band docs/xray.md states for a backend whose
// memory is mostly in its contexts (catalog caches, plan cache, a hash
// join): their used bytes are 60-100% of Pss_Anon + VmSwap, their total
// (blocks malloc'd, some never touched) 80-160% of it.
func checkBand(t *testing.T, b Backend) {
	t.Helper()
	r := b.Breakdown.Reconcile
	if r.UsedRatio < 0.6 || r.UsedRatio > 1 || r.TotalRatio < 0.8 || r.TotalRatio > 1.6 {
		t.Errorf("contexts used/anon %.2f, total/anon %.2f: outside the band (used 0.6-1.0, total 0.8-1.6)", r.UsedRatio, r.TotalRatio)
	}
}
