package advise

import (
	"fmt"
	"sort"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/sysv"
)

// instance is the engine-neutral view of one database instance that the
// checks common to every engine read. Each engine has a constructor
// (fromPostgres, fromMySQL, fromSysV for the owners of SysV segments:
// Oracle's SGA or another program's) and its words in those checks.
type instance struct {
	Engine  Engine
	Subject string
	MainPID int
	// Shared is the main shared memory segment; nil when it was not seen.
	Shared *segment
	// WantsHuge says the configuration asks for huge pages (PostgreSQL
	// huge_pages=on/try, MySQL large_pages=ON); Setting is how it is spelt.
	WantsHuge   bool
	HugeSetting finding.Evidence
	// NeedPages is the pool the instance needs in default-size huge pages,
	// and where that number comes from; 0 when unknown.
	NeedPages  uint64
	NeedSource string
	Work       Workload
	Procs      []labeled
	Cgroup     *linux.CgroupMemory
	// SettingsKnown is false when no setting could be read (a postmaster in
	// a container whose files are not readable from here): the checks
	// that need max_connections, work_mem or shared_buffers are skipped,
	// never run on PostgreSQL's defaults.
	SettingsKnown bool
	// HugePageSize is the page size the configuration asks for
	// (PostgreSQL's huge_page_size; 0: the kernel's default, DefaultHuge).
	HugePageSize, DefaultHuge uint64
	// Hugetlb are the instance's cgroup hugetlb limits, one per page size.
	Hugetlb []linux.CgroupHugetlb
	// SharedBuffers is the engine's main cache (shared_buffers,
	// innodb_buffer_pool_size).
	SharedBuffers finding.Evidence
	CacheBytes    uint64
	// Untrusted says why the instance is not a trusted server account's
	// ("" when it is): its findings stand, it shapes no host-wide advice.
	Untrusted string
	// HeldHugeBytes are the engine's mappings in huge pages besides its
	// main shared memory (MySQL's smaller large-page buffers).
	HeldHugeBytes uint64
	// Worst is the instance's worst case as it runs now.
	Worst WorstCase
	// Huge is the engine's own huge page need when it maps several
	// large-page areas (MySQL); zero when NeedPages says it all.
	Huge HugePageNeed
	// Rights are those of the processes that create its SHM_HUGETLB
	// segments (vm.hugetlb_shm_group, CAP_IPC_LOCK, memlock) against what
	// the segments need; nil when it creates none.
	Rights *sysv.HugetlbOwner
	// words are what the common checks say for this engine.
	words engineWords
	// my is the MySQL/MariaDB server behind the view (nil for PostgreSQL),
	// for the evidence only it has.
	my *mysql.Instance
	// sv are the segments of an owner of SysV segments (nil for a server).
	sv []sysv.SegmentInfo
}

// segment is a shared memory mapping as the kernel maps it.
type segment struct {
	Path     string
	Bytes    uint64
	PageSize uint64
	Hugetlb  bool
}

// fromPostgres builds the view of a PostgreSQL instance.
func fromPostgres(in *postgres.Instance, defaultHuge uint64, o Options) instance {
	set := in.Settings
	v := instance{
		Engine:  Engine{Name: finding.EnginePostgres, Major: in.Major},
		Subject: PostgresSubject(in),
		MainPID: in.PostmasterPID,
		Cgroup:  in.Cgroup,
	}
	if sh := in.Shared; sh != nil {
		v.Shared = &segment{Path: sh.Path, Bytes: sh.SizeBytes, PageSize: sh.PageSizeBytes, Hugetlb: sh.Hugetlb}
	}
	_, dir := set["data_directory"] // from -D on the command line, not a setting read
	v.SettingsKnown = len(set) > map[bool]int{true: 1}[dir]
	hp := set.String("huge_pages")
	v.WantsHuge = hp == "on" || hp == "try"
	v.HugeSetting = pgEvidence(in, "huge_pages")
	v.NeedPages, v.NeedSource = pgNeed(in, defaultHuge)
	v.HugePageSize, _ = set.Bytes("huge_page_size")
	v.DefaultHuge = defaultHuge
	v.CacheBytes, _ = set.Bytes("shared_buffers")
	v.SharedBuffers = pgEvidence(in, "shared_buffers")
	v.Work = PostgresWorkload(in, o.NodesPerQuery)
	v.Worst, v.words = v.Work.WorstCase(), postgresWords
	for _, p := range in.Processes {
		label := fmt.Sprintf("postgres %s (%s)", p.Role, portOf(in))
		v.Procs = append(v.Procs, labeled{Process: p.Process, Label: label, Database: true})
	}
	return v
}

// PostgresSubject names an instance in findings; a version that was not
// read (PG_VERSION unreadable) is "version unknown", never 0.
func PostgresSubject(in *postgres.Instance) string {
	if in.Major == 0 {
		return fmt.Sprintf("postgresql (version unknown) %s (%s)", portOf(in), in.DataDir)
	}
	return fmt.Sprintf("postgresql %d %s (%s)", in.Major, portOf(in), in.DataDir)
}

func portOf(in *postgres.Instance) string {
	if in.Port == 0 {
		return fmt.Sprintf("pid %d", in.PostmasterPID)
	}
	return fmt.Sprintf(":%d", in.Port)
}

// pgEvidence quotes a setting with where it came from.
func pgEvidence(in *postgres.Instance, name string) finding.Evidence {
	s, ok := in.Settings[name]
	if !ok {
		return finding.Evidence{Name: name, Value: "unknown", Source: "not read"}
	}
	src := string(s.Source)
	if s.Source == postgres.FromServer {
		src = "SHOW (running server)"
	} else if s.File != "" {
		src = s.File
	}
	return finding.Evidence{Name: name, Value: s.Value, Source: src}
}

// pgNeed is the instance's need in default-size huge pages: SHOW
// shared_memory_size_in_huge_pages (15+), else the main mapping's size.
func pgNeed(in *postgres.Instance, pageSize uint64) (uint64, string) {
	if n, ok := in.Settings.Int("shared_memory_size_in_huge_pages"); ok && n > 0 {
		if hs, _ := in.Settings.Bytes("huge_page_size"); hs == 0 || hs == pageSize {
			return uint64(n), "SHOW shared_memory_size_in_huge_pages"
		}
	}
	if in.Shared != nil && pageSize > 0 {
		return HugePagesFor(in.Shared.SizeBytes, pageSize), "postmaster's shared mapping size / page size"
	}
	return 0, ""
}

// PostgresWorkload reads the settings that bound private memory, and the
// median private memory of the client backends now running. A setting
// that was not read stays unknown (Workload.Unknown), never a built-in
// default passed off as this server's: the worst-case lines that need it
// are skipped.
func PostgresWorkload(in *postgres.Instance, nodes int) Workload {
	s := in.Settings
	w := Workload{NodesPerQuery: nodes}
	r := settingReader{s: s, w: &w}
	w.MaxConnections = r.int("max_connections")
	w.WorkMemBytes = r.bytes("work_mem")
	w.HashMemMultiplier = hashMem(&r, in.Major)
	w.ParallelWorkers = r.int("max_parallel_workers")
	w.AutovacuumWorkers = r.int("autovacuum_max_workers")
	w.AutovacuumMemBytes = r.bytes("maintenance_work_mem")
	if av, ok := s.Bytes("autovacuum_work_mem"); ok && av > 0 {
		w.AutovacuumMemBytes = av
	}
	if in.Major > 0 && in.Major < 17 && w.AutovacuumMemBytes > vacuumMemCap {
		w.AutovacuumMemBytes = vacuumMemCap
	}
	w.TempBuffersBytes = r.bytes("temp_buffers")
	var ok bool
	if w.JIT, ok = s.Bool("jit"); !ok {
		w.Unknown = append(w.Unknown, "jit")
	}
	w.BackendBaseBytes, w.BaseMeasured = backendBase(in)
	sharedOf(in, &r)
	return w
}

// sharedOf fills the shared memory and its page size: from the mapping
// when it was read, else shared_buffers (the segment is larger) with the
// page size that huge_pages=off implies; otherwise they are unknown.
func sharedOf(in *postgres.Instance, r *settingReader) {
	w := r.w
	if in.Shared != nil {
		w.SharedBytes, w.SharedPageBytes = in.Shared.SizeBytes, in.Shared.PageSizeBytes
		return
	}
	w.SharedBytes, w.SharedFromSetting = r.bytes("shared_buffers"), true
	if in.Settings.String("huge_pages") == "off" {
		w.SharedPageBytes = basePage
		return
	}
	w.Unknown = append(w.Unknown, UnknownPageSize)
}

// hashMem is hash_mem_multiplier: 1 before PostgreSQL 13, which lacks it.
func hashMem(r *settingReader, major int) float64 {
	if major > 0 && major < 13 {
		return 1
	}
	v, ok := r.s.Float("hash_mem_multiplier")
	if !ok {
		r.w.Unknown = append(r.w.Unknown, "hash_mem_multiplier")
	}
	return v
}

// settingReader reads settings into a Workload, naming the unread ones.
type settingReader struct {
	s postgres.Settings
	w *Workload
}

func (r settingReader) int(name string) int {
	v, ok := r.s.Int(name)
	if !ok {
		r.w.Unknown = append(r.w.Unknown, name)
	}
	return int(v)
}

func (r settingReader) bytes(name string) uint64 {
	v, ok := r.s.Bytes(name)
	if !ok {
		r.w.Unknown = append(r.w.Unknown, name)
	}
	return v
}

// backendBase is the median Pss_Anon (+ swap) of the client backends, page
// tables left out (they have their own line). Backends whose cost is
// unknown are left out of the median.
func backendBase(in *postgres.Instance) (uint64, bool) {
	var v []uint64
	for _, p := range in.Processes {
		if p.Role == postgres.RoleClient {
			if c, _, ok := p.PrivateCost(); ok {
				v = append(v, c-*p.Status.VmPTEBytes) // known: PrivateCost needs it
			}
		}
	}
	if len(v) == 0 {
		return DefaultBackendBytes, false
	}
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v[len(v)/2], true
}

func intSetting(s postgres.Settings, name string, def int) int {
	if v, ok := s.Int(name); ok {
		return int(v)
	}
	return def
}

func bytesSetting(s postgres.Settings, name string, def uint64) uint64 {
	if v, ok := s.Bytes(name); ok {
		return v
	}
	return def
}
