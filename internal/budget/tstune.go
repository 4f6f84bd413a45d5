package budget

import (
	"fmt"
	"math"
	"strconv"

	"github.com/dbmem/dbmem/internal/units"
)

// TSTuneSource is the files and commit timescaledb-tune's formulas were
// read from.
const TSTuneSource = "timescale/timescaledb-tune pkg/pgtune/memory.go, misc.go, parallel.go, pkg/tstune/tuner.go (commit c7a642bd, 2026-05-27)"

// TSTune is what timescaledb-tune computes for a host's total RAM (it
// reads it with github.com/pbnjay/memory, and the CPUs with
// runtime.NumCPU: neither sees a cgroup limit), its CPUs and
// max_connections (0: its step function), read from TSTuneSource:
//
//	shared_buffers = RAM/4
//	maintenance_work_mem = RAM in GiB x 128 MiB, at most 2047 MB
//	work_mem = RAM in GiB x (400 MiB / max_connections) / round(CPUs/2), at least 64 kB
//	max_connections = given, else 25 to 2 GB, 50 to 4 GB, 75 to 6 GB, 100
//	autovacuum_max_workers = 10; jit = off (PostgreSQL 12+)
//	max_parallel_workers = CPUs, max_parallel_workers_per_gather = round(CPUs/2)
func TSTune(ramBytes uint64, cpus, maxConns, major int) Peer {
	p := Peer{Tool: "timescaledb-tune", Source: TSTuneSource, Profile: "default"}
	add := func(name, value, formula string) { p.Settings = append(p.Settings, PeerSetting{name, value, formula}) }
	conns := uint64(maxConns)
	if conns == 0 {
		conns = tstuneConns(ramBytes)
	}
	gigs := float64(ramBytes) / float64(units.GiB)
	add("shared_buffers", tsBytes(ramBytes/4), "RAM / 4")
	add("maintenance_work_mem", tsBytes(uint64(min(gigs*128*float64(units.MiB), 2047*float64(units.MiB)))), fmt.Sprintf("%.2f GiB x 128 MiB, at most 2047 MB", gigs))
	add("max_connections", strconv.FormatUint(conns, 10), "as given (else by RAM: 25, 50, 75, 100)")
	add("autovacuum_max_workers", "10", "10")
	if major == 0 || major >= 12 {
		add("jit", "off", "off (PostgreSQL 12+)")
	}
	if cpus <= 0 {
		p.Missing = "the CPU count (timescaledb-tune divides work_mem by round(CPUs / 2)): give --cpus"
		return p
	}
	factor := math.Round(float64(cpus) / 2)
	wm := max(uint64(gigs*(400*float64(units.MiB)/float64(conns))/factor), 64*units.KiB)
	p.Settings = append([]PeerSetting{{Name: "work_mem", Value: tsBytes(wm),
		Formula: fmt.Sprintf("%.2f GiB x (400 MiB / %d connections) / round(%d CPUs / 2), at least 64 kB", gigs, conns, cpus)}}, p.Settings...)
	if cpus > 1 {
		add("max_parallel_workers", strconv.Itoa(cpus), "CPUs")
		add("max_parallel_workers_per_gather", strconv.Itoa(int(factor)), "round(CPUs / 2)")
	}
	return p
}

func tstuneConns(ram uint64) uint64 {
	switch {
	case ram <= 2*units.GiB:
		return 25
	case ram <= 4*units.GiB:
		return 50
	case ram <= 6*units.GiB:
		return 75
	}
	return 100
}

// tsBytes writes bytes as timescaledb-tune does (parse.BytesToPGFormat):
// in the largest unit the size reaches, in the next smaller unit when that
// is not whole, kB rounded, at least 1kB.
func tsBytes(b uint64) string {
	names := []string{"kB", "MB", "GB", "TB"}
	sizes := []uint64{units.KiB, units.MiB, units.GiB, units.TiB}
	i := len(sizes) - 1
	for i >= 0 && b < sizes[i] {
		i--
	}
	if i < 0 {
		return "1kB"
	}
	v := float64(b) / float64(sizes[i])
	if i == 0 {
		return strconv.FormatUint(uint64(math.Round(v)), 10) + "kB"
	}
	if v-math.Floor(v) > 0.001 {
		v, i = v*1024, i-1
	}
	return strconv.FormatUint(uint64(v), 10) + names[i]
}
