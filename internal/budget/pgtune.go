package budget

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/units"
)

// PGTuneSource is the file and commit PGTune's formulas were read from.
const PGTuneSource = "le0pard/pgtune src/features/configuration/configurationSlice.js (commit 7caef27c, 2026-07-30)"

// pgtuneDivisor is PGTune's work_mem divisor by profile (web, oltp 1; dw,
// mixed 2; desktop 6) and its maintenance_work_mem divisor (RAM/16, dw
// RAM/8).
var pgtuneDivisor = map[string][2]uint64{
	"web": {1, 16}, "oltp": {1, 16}, "dw": {2, 8}, "mixed": {2, 16}, "desktop": {6, 16},
}

// pgtuneConns are PGTune's max_connections when none is given.
var pgtuneConns = map[string]int{"web": 200, "oltp": 300, "dw": 40, "desktop": 20, "mixed": 100}

// PGTune is what PGTune computes for a host (RAM as a person types it in
// PGTune's form: whole MB), its CPUs (0: left empty), max_connections (0:
// its profile's default) and profile, read from PGTuneSource:
//
//	shared_buffers = RAM/4 (desktop RAM/16)
//	maintenance_work_mem = RAM/16 (dw RAM/8), at most 8 GB
//	work_mem = (RAM - shared_buffers) / ((max_connections + max_worker_processes) x 3),
//	  / 2 for dw and mixed, / 6 for desktop, at least 4 MB;
//	  max_worker_processes = CPUs from 4 CPUs, else PostgreSQL's 8
//	autovacuum_work_mem = 2 GB when maintenance_work_mem reaches 2 GB
//	jit = off for web, oltp and mixed (PostgreSQL 12+)
//	max_parallel_workers = CPUs, max_parallel_workers_per_gather =
//	  ceil(CPUs/2), at most 4 (dw: no cap), from 4 CPUs
func PGTune(ramBytes uint64, cpus, maxConns, major int, profile string) Peer {
	profile = profileOr(profile)
	div := pgtuneDivisor[profile]
	kb := ramBytes / units.MiB * 1024 // typed in whole MB
	sb := kb / 4
	if profile == "desktop" {
		sb = kb / 16
	}
	if maxConns <= 0 {
		maxConns = pgtuneConns[profile]
	}
	workers := 8
	if cpus >= 4 {
		workers = cpus
	}
	wm := max((kb-sb)/uint64((maxConns+workers)*3)/div[0], 4096)
	mwm := min(kb/div[1], 8*1024*1024)
	p := Peer{Tool: "PGTune", Source: PGTuneSource, Profile: profile}
	add := func(name, value, formula string) { p.Settings = append(p.Settings, PeerSetting{name, value, formula}) }
	add("shared_buffers", kB(sb), fmt.Sprintf("%d kB RAM / %d", kb, kb/max(sb, 1)))
	add("work_mem", kB(wm), fmt.Sprintf("(%d kB - %d kB) / ((%d max_connections + %d workers) x 3) / %d, at least 4 MB", kb, sb, maxConns, workers, div[0]))
	add("maintenance_work_mem", kB(mwm), fmt.Sprintf("%d kB RAM / %d, at most 8 GB", kb, div[1]))
	if mwm >= 2*1024*1024 {
		add("autovacuum_work_mem", kB(2*1024*1024), "2 GB: maintenance_work_mem reaches 2 GB")
	}
	add("max_connections", strconv.Itoa(maxConns), "as given (its profile's default when none)")
	if major == 0 || major >= 12 {
		if profile == "web" || profile == "oltp" || profile == "mixed" {
			add("jit", "off", "off for web, oltp and mixed (PostgreSQL 12+)")
		}
	}
	p.Settings = append(p.Settings, pgtuneParallel(cpus, profile)...)
	return p
}

// pgtuneParallel: from 4 CPUs, one parallel worker per CPU and
// ceil(CPUs / 2) per Gather, at most 4 but for dw.
func pgtuneParallel(cpus int, profile string) []PeerSetting {
	if cpus < 4 {
		return nil
	}
	g := (cpus + 1) / 2
	if profile != "dw" {
		g = min(g, 4)
	}
	return []PeerSetting{{"max_parallel_workers", strconv.Itoa(cpus), "CPUs"},
		{"max_parallel_workers_per_gather", strconv.Itoa(g), "ceil(CPUs / 2), at most 4 (dw: no cap)"}}
}

func kB(v uint64) string { return strconv.FormatUint(v, 10) + "kB" }

func profileOr(p string) string {
	if _, ok := pgtuneDivisor[p]; ok {
		return p
	}
	return "web"
}
