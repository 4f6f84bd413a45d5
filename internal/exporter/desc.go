package exporter

import "github.com/prometheus/client_golang/prometheus"

const ns = "dbmem"

// Every instance is labelled port, data_dir and server_pid (set only to
// tell apart instances whose port and data_dir are the same or unknown:
// see instanceLabels).
var (
	inst     = []string{"port", "data_dir", "server_pid"}
	instRole = []string{"port", "data_dir", "server_pid", "role"}
)

func with(labels []string, more ...string) []string {
	return append(append([]string(nil), labels...), more...)
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(ns+"_"+name, help, labels, nil)
}

// The metrics. HELP texts say the formula; units are in the names.
var (
	descHugePool  = desc("host_huge_pages_pool", "Huge pages in the host-wide pool of this page size (nr_hugepages + surplus).", "page_size_bytes")
	descAvailable = desc("host_mem_available_bytes", "MemAvailable from /proc/meminfo: what can be allocated before the host reclaims hard or OOM-kills (the classic estimate on kernels before 3.14).")
	descHugeInUse = desc("host_huge_pages_in_use", "Huge pages in use or reserved: Total - Free + Rsvd.", "page_size_bytes")

	descInfo        = desc("postgres_info", "A PostgreSQL instance found on this host (1); labels say its version, huge_pages setting and whether settings came from a connection.", with(inst, "version", "huge_pages", "connected")...)
	descProcesses   = desc("postgres_processes", "Processes of the instance by role (postmaster, client backend, checkpointer, ...).", instRole...)
	descConnections = desc("postgres_connections", "Client backends of the instance.", inst...)
	descMaxConn     = desc("postgres_max_connections", "The max_connections setting.", inst...)
	descPrivate     = desc("postgres_private_bytes", "Private memory by role at scrape time: RssAnon + VmPTE + VmSwap from /proc/PID/status (an over-estimate: copy-on-write pages count fully).", instRole...)
	descPssPrivate  = desc("postgres_pss_private_bytes", "Private memory by role from the last smaps pass: Pss_Anon + VmPTE + VmSwap, the cost of these processes beyond shared memory.", instRole...)
	descLongLived   = desc("postgres_long_lived_private_bytes", "Private memory by role of the processes alive for 10 minutes or more: RssAnon + VmPTE + VmSwap. Steady growth here is caches or a leak, not new connections (predict_linear over it: deploy/prometheus).", instRole...)
	descLongLivedN  = desc("postgres_long_lived_processes", "Processes by role alive for 10 minutes or more (the ones in dbmem_postgres_long_lived_private_bytes).", instRole...)
	descPTE         = desc("postgres_page_table_bytes", "Page tables (VmPTE) summed by role: kernel memory in no RSS or Pss.", instRole...)
	descShared      = desc("postgres_shared_memory_bytes", "Size of the main shared memory segment as the postmaster maps it.", inst...)
	descSharedPage  = desc("postgres_shared_memory_page_size_bytes", "Page size the kernel really uses for the main shared segment (4096: huge pages are not in use).", inst...)
	descHugeNeeded  = desc("postgres_huge_pages_needed", "Huge pages the main shared segment needs: shared_memory_size_in_huge_pages, else ceil(segment size / huge page size).", with(inst, "page_size_bytes")...)
	descPTEProj     = desc("postgres_page_tables_projected_bytes", "Page tables if max_connections backends each touch the whole shared segment: max_connections x ceil(segment / page size) x 8 bytes.", inst...)
	descWorstCase   = desc("postgres_worst_case_bytes", "Worst-case memory of the instance by part (private: every connection sorting and hashing at once, autovacuum, temp_buffers, JIT, backend baseline; page_tables; shared); the parts add up to the total.", with(inst, "part")...)
	descLimit       = desc("postgres_memory_limit_bytes", "Limits the worst case must fit: mem_total (RAM), commit_limit (only with vm.overcommit_memory=2) and cgroup (the instance's memory.max).", with(inst, "limit")...)

	descOOMMax   = desc("postgres_oom_score_max", "Highest /proc/PID/oom_score among the instance's processes of this role.", instRole...)
	descOOMAdj   = desc("postgres_postmaster_oom_score_adj", "oom_score_adj of the postmaster (PostgreSQL advises -1000 for it, 0 for its children).", inst...)
	descOOMRank  = desc("postgres_oom_victim_rank", "Rank of the instance's highest-scored process among every process of the host by oom_score: 1 means the OOM killer would kill a process of this instance first.", inst...)
	descOOMTop   = desc("process_oom_score", "oom_score of the host's top processes by oom_score (rank 1 is the next OOM victim); role, port and data_dir are set for PostgreSQL processes. No pid label: at most --oom-top series.", "rank", "comm", "role", "port", "data_dir")
	descFinding  = desc("finding", "A finding of the diagnose engine that holds now (1), by id, severity and subject.", "id", "severity", "subject")
	descFindings = desc("findings", "Number of findings that hold now, by severity.", "severity")
	descColDur   = desc("scrape_collector_duration_seconds", "Wall-clock time a collector took in this scrape.", "collector")
	descColCPU   = desc("scrape_collector_cpu_seconds", "CPU time (user + system, including the kernel's work producing /proc files) a collector took in this scrape.", "collector")
	descColOK    = desc("scrape_collector_success", "Whether a collector succeeded in this scrape (1) or not (0).", "collector")
	descSmapsTS  = desc("smaps_last_success_timestamp_seconds", "When the last smaps_rollup (Pss) pass finished successfully, Unix time.")
	descSmapsDur = desc("smaps_duration_seconds", "Wall-clock time of the last smaps_rollup pass.")
	descSmapsCPU = desc("smaps_cpu_seconds", "CPU time (user + system) of the last smaps_rollup pass: what exact private cost costs the host.")
	descSmapsOK  = desc("smaps_success", "Whether the last smaps_rollup pass succeeded (1) or not (0).")

	descInstOK   = desc("instance_scrape_success", "Whether every metric of this database instance was made in this scrape (1) or some were left out (0; the exporter's log says why); the other instances are served either way.", with(inst, "engine")...)
	descInstGaps = desc("instance_unread_inputs", "Inputs of this database instance that could not be read (settings, files, a process's status): each one's figures are absent, never 0. Details in `dbmem report`.", with(inst, "engine")...)
	descBuild    = desc("build_info", "A metric with a constant 1 labelled by the version and build of the dbmem exporter.", "version", "revision", "goversion", "goos", "goarch")

	descMyInfo      = desc("mysql_info", "A MySQL or MariaDB server found on this host (1); labels say its flavor, version, large_pages setting and whether settings came from a connection.", with(inst, "flavor", "version", "large_pages", "connected")...)
	descMyPool      = desc("mysql_buffer_pool_bytes", "The innodb_buffer_pool_size setting (its mapping, with InnoDB's control blocks, is a little larger; the worst case counts the larger).", inst...)
	descMyPoolPage  = desc("mysql_buffer_pool_page_size_bytes", "Page size the kernel really uses for the InnoDB buffer pool's mapping (4096: not in huge pages, whatever large_pages says).", inst...)
	descMyHugeMaps  = desc("mysql_huge_page_mapped_bytes", "Memory of the server mapped in huge pages (every hugetlb mapping, the buffer pool or not).", inst...)
	descMyHugeNeed  = desc("mysql_huge_pages_needed", "Huge pages the server would need with large_pages=ON: the buffer pool and the other large allocations, with the margin `dbmem plan` uses.", with(inst, "page_size_bytes")...)
	descMyMaxConn   = desc("mysql_max_connections", "The max_connections setting.", inst...)
	descMyWorstCase = desc("mysql_worst_case_bytes", "Worst-case memory of the server by part (global: buffer pool and global buffers; connections: max_connections x per-thread buffers; performance_schema, only when measured; page_tables: those of the large-page buffers, mapped once); the parts add up to the total.", with(inst, "part")...)
	descMyPrivate   = desc("mysql_private_bytes", "Private memory of the server process at scrape time: RssAnon + VmPTE + VmSwap from /proc/PID/status (includes a buffer pool in 4 KiB pages).", inst...)
	descMyPss       = desc("mysql_pss_private_bytes", "Private memory of the server process from the last smaps pass: Pss_Anon + VmPTE + VmSwap.", inst...)
	descMyPTE       = desc("mysql_page_table_bytes", "Page tables (VmPTE) of the server process.", inst...)
)

var allDescs = []*prometheus.Desc{
	descHugePool, descHugeInUse, descInfo, descProcesses, descConnections, descMaxConn, descPrivate,
	descPssPrivate, descPTE, descShared, descSharedPage, descHugeNeeded, descPTEProj, descWorstCase,
	descLimit, descOOMMax, descOOMAdj, descOOMRank, descOOMTop, descFinding, descFindings,
	descColDur, descColCPU, descColOK, descSmapsTS, descSmapsDur, descSmapsCPU, descSmapsOK,
	descInstOK, descInstGaps, descBuild,
	descMyInfo, descMyPool, descMyPoolPage, descMyHugeMaps, descMyHugeNeed, descMyMaxConn, descMyWorstCase,
	descMyPrivate, descMyPss, descMyPTE, descAvailable, descLongLived, descLongLivedN,
}
