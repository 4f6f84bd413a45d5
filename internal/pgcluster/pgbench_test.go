package pgcluster

import (
	"context"
	"strings"
	"testing"
	"time"
)

// Recorded from pgbench 15.20 (Debian 15.20-0+deb12u1), kernel 6.18, on
// this project's test host (select-only on an unprewarmed scale-25 table).
const pgbench15 = `pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: <builtin: select only>
scaling factor: 25
query mode: prepared
number of clients: 4
number of threads: 2
maximum number of tries: 1
duration: 3 s
number of transactions actually processed: 10075
number of failed transactions: 0 (0.000%)
latency average = 1.146 ms
initial connection time = 250.592 ms
tps = 3491.261969 (without initial connection time)
`

// Output of pgbench 12 (format before PostgreSQL 14), hand-written from the
// PostgreSQL 12 documentation.
const pgbench12 = `transaction type: <builtin: select only>
scaling factor: 1
query mode: simple
number of clients: 10
number of threads: 1
number of transactions per client: 1000
number of transactions actually processed: 10000/10000
tps = 85.184871 (including connections establishing)
tps = 85.296346 (excluding connections establishing)
`

func TestParsePgbench(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want PgbenchResult
	}{
		{"pg15", pgbench15, PgbenchResult{TPS: 3491.261969, Transactions: 10075, Clients: 4}},
		{"pg12", pgbench12, PgbenchResult{TPS: 85.296346, Transactions: 10000, Clients: 10}},
	} {
		got, err := ParsePgbench(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	for _, bad := range []string{"", "tps = 12 (including connections establishing)\n", "tps = NaN (without initial connection time)"} {
		if _, err := ParsePgbench(bad); err == nil {
			t.Errorf("ParsePgbench(%q): no error", bad)
		}
	}
}

func FuzzParsePgbench(f *testing.F) {
	f.Add(pgbench15)
	f.Add(pgbench12)
	f.Add("tps = -1 (excluding\n")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParsePgbench(s)
		if err == nil && !(r.TPS >= 0) {
			t.Fatalf("accepted TPS %v", r.TPS)
		}
	})
}

// TestPgbenchSelectOnly runs pgbench -i and a select-only run on a real
// throwaway cluster.
func TestPgbenchSelectOnly(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Create(ctx, Options{Settings: map[string]string{"shared_buffers": "32MB"}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Remove()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Pgbench(ctx, "-i", "-q", "-s", "1", "-I", "dtgvp", "--unlogged-tables"); err != nil {
		t.Fatal(err)
	}
	out, err := c.Pgbench(ctx, "-n", "-S", "-M", "prepared", "-c", "2", "-j", "1", "-T", "1")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParsePgbench(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.TPS <= 0 || r.Transactions <= 0 || r.Clients != 2 || !strings.Contains(out, "select only") {
		t.Errorf("implausible pgbench result %+v from\n%s", r, out)
	}
}
