package budget

import (
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/units"
)

func ptr[T any](v T) *T { return &v }

// TestComputeLimit: RAM less the pool, shared memory outside it, other
// software and the reserve; a lower cgroup limit (huge pages are not
// charged to it); CommitLimit when it is lower, saying which.
func TestComputeLimit(t *testing.T) {
	G := units.GiB
	for _, c := range []struct {
		name   string
		h      Host
		want   uint64
		source string
	}{
		{"ram", Host{RAMBytes: 10 * G, HugePoolBytes: 2 * G, SharedBytes: 2 * G, SharedInHugePages: true, CoHostedBytes: ptr(G)}, 10*G - 2*G - G - 2*G, FromRAM},
		{"shared in 4 KiB pages", Host{RAMBytes: 10 * G, SharedBytes: 2 * G, CoHostedBytes: ptr(uint64(0))}, 10*G - 2*G - 2*G, FromRAM},
		{"cgroup", Host{RAMBytes: 64 * G, CgroupLimitBytes: ptr(8 * G), HugePoolBytes: 4 * G, SharedBytes: G, SharedInHugePages: true}, 8*G - 8*G/5, FromCgroup},
		{"commit", Host{RAMBytes: 10 * G, SharedBytes: G, CommitLimitBytes: ptr(5 * G), CoHostedBytes: ptr(G)}, 5*G - G - G, FromCommitLimit},
		{"commit above ram", Host{RAMBytes: 10 * G, CommitLimitBytes: ptr(20 * G)}, 8 * G, FromRAM},
		{"nothing left", Host{RAMBytes: G, SharedBytes: 2 * G}, 0, FromRAM},
	} {
		l := ComputeLimit(c.h)
		if diff := int64(l.Bytes) - int64(c.want); diff > 16 || diff < -16 || l.Source != c.source {
			t.Errorf("%s: %s (%s), want %s (%s): %s", c.name, units.Bytes(l.Bytes), l.Source, units.Bytes(c.want), c.source, l.Formula)
		}
	}
}

func TestPGBytesAndRounding(t *testing.T) {
	for _, c := range []struct {
		b    uint64
		want string
	}{{64 * units.KiB, "64kB"}, {4 * units.MiB, "4MB"}, {2 * units.GiB, "2GB"}, {1536 * units.MiB, "1536MB"}, {1500 * units.KiB, "1500kB"}} {
		if got := units.PG(c.b); got != c.want {
			t.Errorf("units.PG(%d) = %s, want %s", c.b, got, c.want)
		}
	}
	for _, c := range []struct{ in, want uint64 }{{5*units.MiB + 7, 5 * units.MiB}, {1500 * units.KiB, 1472 * units.KiB}, {10, minWorkMem}} {
		if got := floorSetting(c.in, minWorkMem); got != c.want {
			t.Errorf("floorSetting(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// base is a 16 GiB host, 8 CPUs, PostgreSQL 16 defaults, measured: 20
// backends, 2 active.
func base() PGInput {
	return PGInput{Subject: "t", Major: 16,
		Host: Host{RAMBytes: 16 * units.GiB, SharedBytes: 4 * units.GiB, CoHostedBytes: ptr(uint64(0)), CPUs: 8},
		Settings: PGSettings{MaxConnections: 100, SuperuserReserved: 3, WorkMemBytes: 4 * units.MiB, HashMemMultiplier: 2,
			MaintenanceWorkMemBytes: 64 * units.MiB, AutovacuumMaxWorkers: 3, MaxParallelWorkers: 8, MaxParallelWorkersPerGather: 2,
			TempBuffersBytes: 8 * units.MiB, JIT: true},
		Measured: &Measured{Backends: 20, BaselineMedianBytes: 2 * units.MiB, BaselineP95Bytes: 3 * units.MiB, ActiveNow: 2,
			Roles: []RoleMeasure{{Name: "app", Backends: 18, Active: 2}, {Name: "report", Backends: 2}}},
		Pools: &Pools{MaxServerConnections: 200, Known: true},
	}
}

func roleOf(r Result, name string) Role {
	for _, x := range r.Roles {
		if x.Name == name {
			return x
		}
	}
	return Role{}
}

// TestRoles: only a role that spills is raised, by work_mem + its spill
// rounded up, capped by its share; a role whose own work_mem is too large
// and spills nothing is lowered; a spill of no known role raises none.
func TestRoles(t *testing.T) {
	for _, c := range []struct {
		name        string
		spills      []Spill
		ownReport   string
		wantReport  string
		wantApp     string
		notesSaying string
	}{
		{"spill", []Spill{{Role: "report", Bytes: 100 * units.MiB, Source: "log"}}, "", "104MB", "", ""},
		{"two sources, largest counts", []Spill{{Role: "report", Bytes: 10 * units.MiB, Source: "log"}, {Role: "report", Bytes: 30 * units.MiB, Source: "pgss"}}, "", "36MB", "", ""},
		{"capped", []Spill{{Role: "report", Bytes: 100 * units.GiB, Source: "log"}}, "", "capped", "", ""},
		{"own too large, no spill", nil, "8GB", "lowered", "", ""},
		{"own fits, no spill", nil, "64MB", "", "", ""},
		{"unknown role", []Spill{{Role: "", Bytes: 50 * units.MiB, Source: "log"}}, "", "", "", "no known role"},
	} {
		in := base()
		in.Measured.Spills = c.spills
		if c.ownReport != "" {
			in.Measured.Roles[1].WorkMem = c.ownReport
			in.Measured.Roles[1].WorkMemBytes = pgSizeOf(c.ownReport)
		}
		r := Postgres(in)
		rep, app := roleOf(r, "report"), roleOf(r, "app")
		switch c.wantReport {
		case "capped":
			if rep.Proposed == "" || pgSizeOf(rep.Proposed) > uint64(float64(r.LimitBytes)*RoleShare) {
				t.Errorf("%s: report %+v", c.name, rep)
			}
		case "lowered":
			if rep.Proposed == "" || pgSizeOf(rep.Proposed) >= pgSizeOf(c.ownReport) {
				t.Errorf("%s: report %+v", c.name, rep)
			}
		default:
			if rep.Proposed != c.wantReport {
				t.Errorf("%s: report proposed %q, want %q (%s)", c.name, rep.Proposed, c.wantReport, rep.Formula)
			}
		}
		if app.Proposed != c.wantApp {
			t.Errorf("%s: app proposed %q", c.name, app.Proposed)
		}
		if c.notesSaying != "" && !strings.Contains(strings.Join(r.Notes, " "), c.notesSaying) {
			t.Errorf("%s: notes %q", c.name, r.Notes)
		}
		if !r.Fits {
			t.Errorf("%s: %s over %s", c.name, units.Bytes(r.TotalBytes), units.Bytes(r.LimitBytes))
		}
	}
}

func pgSizeOf(v string) uint64 {
	p := Peer{Settings: []PeerSetting{{Name: "x", Value: v}}}
	b, _ := peerBytes(p, "x")
	return b
}

// TestJITAndConnections: JIT goes off past JITShare of the limit; idle
// backends past ConnectionShare lower max_connections to twice the peak
// recorded (a restart); a what-if keeps it.
func TestJITAndConnections(t *testing.T) {
	in := base()
	in.Measured.ActiveNow = 60 // 120 x 25 MiB = 3 GiB > 10% of ~9 GiB
	r := Postgres(in)
	if s, _ := r.Setting("jit"); s.Value != "off" {
		t.Errorf("jit %s: %s", s.Value, s.Formula)
	}
	in = base()
	in.Settings.MaxConnections = 2000
	in.Measured.BaselineP95Bytes = 4 * units.MiB // 2000 x 4 MiB = 7.8 GiB of ~9.6
	in.Measured.HistoryPeakConnections = ptr(20)
	in.Pools = nil
	r = Postgres(in)
	if s, _ := r.Setting("max_connections"); s.Value != "40" || !s.Restart {
		t.Errorf("max_connections %s (restart %v): %s", s.Value, s.Restart, s.Formula)
	}
	in.Measured = nil
	r = Postgres(in)
	if s, _ := r.Setting("max_connections"); s.Value != "2000" {
		t.Errorf("what-if max_connections %s", s.Value)
	}
}

// TestConcurrency: measured (twice the sample, at least the CPUs, at most
// the connections recorded and the pools), given, what-if with CPUs (2 x
// CPUs + 1) or without (every connection).
func TestConcurrency(t *testing.T) {
	in := base()
	if r := Postgres(in); r.Concurrency != 8 {
		t.Errorf("measured 2 active, 8 CPUs: %d (%s)", r.Concurrency, r.ConcurrencySource)
	}
	in.Measured.ActiveNow = 30
	in.Measured.HistoryPeakConnections = ptr(70)
	if r := Postgres(in); r.Concurrency != 60 {
		t.Errorf("30 active, 70 recorded: %d (%s)", r.Concurrency, r.ConcurrencySource)
	}
	in.Pools = &Pools{MaxServerConnections: 25, Known: true, Formula: "x"}
	if r := Postgres(in); r.Concurrency != 25 {
		t.Errorf("pools 25: %d (%s)", r.Concurrency, r.ConcurrencySource)
	}
	in.Measured, in.Pools = nil, nil
	if r := Postgres(in); r.Concurrency != 17 {
		t.Errorf("what-if 8 CPUs: %d", r.Concurrency)
	}
	in.Host.CPUs = 0
	if r := Postgres(in); r.Concurrency != 100 || !strings.Contains(strings.Join(gapsOf(r), " "), "poolers") {
		t.Errorf("what-if, no CPUs: %d, gaps %q", r.Concurrency, gapsOf(r))
	}
	in.ActiveSessions = 7
	if r := Postgres(in); r.Concurrency != 7 {
		t.Errorf("given 7: %d", r.Concurrency)
	}
}

func gapsOf(r Result) []string {
	var out []string
	for _, g := range r.Gaps {
		out = append(out, g.What)
	}
	return out
}

// TestPeers: PGTune's and timescaledb-tune's formulas across sizes, worked
// by hand from their sources.
func TestPeers(t *testing.T) {
	for _, c := range []struct {
		ram             uint64
		cpus, conns     int
		profile         string
		pgWork, pgMaint string
		tsWork, tsMaint string
	}{
		{5016896 * units.KiB, 0, 100, "web", "11612kB", "313536kB", "", "627112kB"},
		{4 * units.GiB, 2, 200, "web", "5041kB", "262144kB", "8MB", "512MB"},
		{64 * units.GiB, 16, 100, "dw", "72315kB", "8388608kB", "32MB", "2047MB"},
		{2 * units.GiB, 4, 20, "desktop", "4551kB", "131072kB", "20MB", "256MB"},
		{1024 * units.GiB, 64, 500, "mixed", "237974kB", "8388608kB", "26214kB", "2047MB"},
	} {
		pg := PGTune(c.ram, c.cpus, c.conns, 16, c.profile)
		ts := TSTune(c.ram, c.cpus, c.conns, 16)
		got := []string{peerString(pg, "work_mem"), peerString(pg, "maintenance_work_mem"), peerString(ts, "work_mem"), peerString(ts, "maintenance_work_mem")}
		want := []string{c.pgWork, c.pgMaint, c.tsWork, c.tsMaint}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s %d CPUs %d conns %s: got %q, want %q", units.Bytes(c.ram), c.cpus, c.conns, c.profile, got, want)
		}
	}
}

// FuzzPostgres: any host and settings give a budget without a panic,
// work_mem at least PostgreSQL's 64kB, Fits saying whether the total fits.
func FuzzPostgres(f *testing.F) {
	f.Add(uint64(16<<30), uint64(4<<30), uint16(100), uint16(2), uint64(4<<20), uint8(8), uint64(0))
	f.Add(uint64(1<<30), uint64(2<<30), uint16(5000), uint16(900), uint64(1<<40), uint8(0), uint64(1<<30))
	f.Fuzz(func(t *testing.T, ram, shared uint64, conns, active uint16, workMem uint64, cpus uint8, spill uint64) {
		in := base()
		in.Host.RAMBytes, in.Host.SharedBytes, in.Host.CPUs = ram, shared, int(cpus)
		in.Settings.MaxConnections, in.Settings.WorkMemBytes = int(conns)+1, workMem
		in.Measured.ActiveNow = int(active)
		in.Measured.Spills = []Spill{{Role: "report", Bytes: spill % (1 << 50), Source: "fuzz"}}
		r := Postgres(in)
		if s, _ := r.Setting("work_mem"); pgSizeOf(s.Value) < minWorkMem && workMem >= minWorkMem {
			t.Fatalf("work_mem %s", s.Value)
		}
		if r.Fits != (r.TotalBytes <= r.LimitBytes) {
			t.Fatalf("fits %v, %d of %d", r.Fits, r.TotalBytes, r.LimitBytes)
		}
	})
}
