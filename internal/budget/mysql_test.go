package budget

import (
	"strings"
	"testing"
)

const miB = 1 << 20

// mariadb4G is a 4 GiB host with a 2 GiB buffer pool in 4 KiB pages, no
// co-hosted software, MariaDB's defaults, 20 connections seen at once and a
// thread measured at 1 MiB.
func mariadb4G() MySQLInput {
	zero := uint64(0)
	return MySQLInput{Subject: "mariadb 10.11 :3306", Engine: "mariadb",
		Host: Host{RAMBytes: 4 << 30, SharedBytes: 2 << 30, CoHostedBytes: &zero, CoHostedFrom: "measured"},
		Settings: MySQLSettings{MaxConnections: 151, SortBufferBytes: 2 * miB, JoinBufferBytes: 256 << 10, ReadBufferBytes: 128 << 10,
			ReadRndBufferBytes: 256 << 10, ThreadStackBytes: 299008, NetBufferBytes: 16 << 10, TmpTableBytes: 16 * miB, MaxHeapTableBytes: 16 * miB,
			GlobalPrivateBytes: miB, GlobalPrivateFormula: "query_cache_size"},
		Measured: &MySQLMeasured{MaxUsedConnections: new(20), PerThreadBytes: miB, PerThreadFrom: "measured"}}
}

// The expected figures, by hand: limit = 4 GiB - 2 GiB shared - 20% of
// 4 GiB = 1288490189 B. A query's connection costs 1 MiB thread + 2.625
// MiB buffers + 16 MiB temporary table = 20578304 B; (limit - 1 MiB global)
// / that = 62 connections fit. Max_used_connections 20: max(ceil(20 x
// 1.25), 20 + 10) = 30 proposed. Lines: 1 MiB global, 30 x 1 MiB threads,
// 20 x 2.625 MiB buffers, 20 x 16 MiB temporary tables.
func TestMySQLBudget(t *testing.T) {
	r := MySQL(mariadb4G())
	s, _ := r.Setting("max_connections")
	if r.LimitBytes != 1288490189 || s.Value != "30" || s.Current != "151" || !r.Fits {
		t.Fatalf("limit %d, max_connections %s (now %s), fits %v", r.LimitBytes, s.Value, s.Current, r.Fits)
	}
	want := map[string]uint64{"global buffers": miB, "threads": 30 * miB, "per-thread buffers": 20 * 2752512, "in-memory temporary tables": 20 * 16 * miB}
	for _, l := range r.Lines {
		if want[l.Name] != l.Bytes {
			t.Errorf("%s = %d, want %d (%s)", l.Name, l.Bytes, want[l.Name], l.Formula)
		}
	}
	if r.TotalBytes != miB+30*miB+20*2752512+320*miB || r.Concurrency != 20 {
		t.Errorf("total %d, concurrency %d", r.TotalBytes, r.Concurrency)
	}
}

// A temporary table is counted per query, never per thread (MySQLTuner
// issue 923), and MySQL 8's temptable_max_ram caps them all.
func TestMySQLTmpTablesPerQuery(t *testing.T) {
	in := mariadb4G()
	in.Settings.MaxConnections = 500
	in.Measured.MaxUsedConnections = new(100)
	in.Settings.TempTableMaxRAMBytes = new(uint64(1 << 30))
	in.Settings.TmpTableBytes, in.Settings.MaxHeapTableBytes = 64*miB, 64*miB
	in.Engine = "mysql"
	r := MySQL(in)
	for _, l := range r.Lines {
		if l.Name == "in-memory temporary tables" && (l.Bytes != 1<<30 || !strings.Contains(l.Formula, "temptable_max_ram")) {
			t.Errorf("temporary tables %d: %s", l.Bytes, l.Formula)
		}
	}
	// Without the cap a query's connection costs its table too: (limit - 1
	// MiB) / 20578304 = 62 fit, below the 125 wanted.
	in.Settings.TempTableMaxRAMBytes = nil
	in.Settings.TmpTableBytes, in.Settings.MaxHeapTableBytes = 16*miB, 16*miB
	r = MySQL(in)
	if s, _ := r.Setting("max_connections"); s.Value != "62" || len(r.Notes) == 0 {
		t.Errorf("max_connections %s, notes %v", s.Value, r.Notes)
	}
	if p := r.Peers[0]; p.Tool != "mysqltuner" || p.TotalBytes != 500*(128<<10+256<<10+2*miB+299008+256<<10)+16*miB+miB {
		t.Errorf("MySQLTuner %+v", p)
	}
}

// connection_memory_limit caps a connection only when tracking is on.
func TestMySQLConnectionMemoryLimit(t *testing.T) {
	in := mariadb4G()
	in.Measured.MaxUsedConnections = new(100)
	in.Settings.ConnectionMemoryLimitBytes = new(uint64(4 * miB))
	r := MySQL(in)
	if s, _ := r.Setting("max_connections"); s.Value != "62" {
		t.Errorf("tracking off: max_connections %s, want 62 (the limit is not enforced)", s.Value)
	}
	in.Settings.ConnectionMemoryTracking = true
	r = MySQL(in)
	if s, _ := r.Setting("max_connections"); s.Value != "125" || !strings.Contains(s.Formula, "connection_memory_limit") {
		t.Errorf("tracking on: max_connections %s: %s", s.Value, s.Formula)
	}
}

// A what-if (nothing measured) never raises max_connections and says what
// it assumed: a thread at thread_stack + 2 x net_buffer_length, 331776 B,
// and a query's connection at 19861504 B: 64 fit.
func TestMySQLWhatIf(t *testing.T) {
	in := mariadb4G()
	in.Measured = nil
	r := MySQL(in)
	if s, _ := r.Setting("max_connections"); s.Value != "64" {
		t.Errorf("max_connections %s", s.Value)
	}
	if len(r.Gaps) < 2 {
		t.Errorf("gaps %v: want the per-thread cost and Max_used_connections", r.Gaps)
	}
}

// When not even MySQLMinConnections fit (2 GiB RAM, 1.5 GiB of it buffers:
// the limit after the 20% reserve is 104 MiB, 5 connections of 20578304 B),
// no max_connections is proposed: a floor of 10 would be a value the
// arithmetic refutes; the note says why.
func TestMySQLNothingFitsProposesNothing(t *testing.T) {
	in := mariadb4G()
	in.Host.RAMBytes, in.Host.SharedBytes = 2<<30, 1536<<20
	r := MySQL(in)
	if s, ok := r.Setting("max_connections"); ok {
		t.Fatalf("max_connections %s proposed (%s) where not %d fit", s.Value, s.Formula, MySQLMinConnections)
	}
	if len(r.Notes) == 0 || !strings.Contains(strings.Join(r.Notes, " "), "no max_connections is proposed") {
		t.Errorf("notes %v: want why no value is proposed", r.Notes)
	}
}
