package archetype

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Spec is one archetype as written in spec.yaml: the host's sizes and
// settings, its database processes, and the files people posted.
type Spec struct {
	Title    string `json:"title"`
	Kernel   string `json:"kernel"`
	Hostname string `json:"hostname"`
	// BasePageKB is the base page size (4; 64 on arm64 kernels with 64 KiB pages).
	BasePageKB uint64 `json:"base_page_kb,omitempty"`
	// Meminfo holds meminfo values in kB (counts for HugePages_*) for the
	// lines not taken from MeminfoPosted; missing ones are derived.
	Meminfo       map[string]uint64 `json:"meminfo"`
	MeminfoPosted string            `json:"meminfo_posted,omitempty"`
	Sysctl        map[string]string `json:"sysctl,omitempty"`
	THP           THPSpec           `json:"thp"`
	NUMANodes     int               `json:"numa_nodes,omitempty"`
	// DefaultHugeKB is Hugepagesize (2048 unless booted with default_hugepagesz).
	DefaultHugeKB uint64            `json:"default_huge_kb,omitempty"`
	Pools         []PoolSpec        `json:"pools,omitempty"`
	Postgres      []PGSpec          `json:"postgres,omitempty"`
	MySQL         []MySQLSpec       `json:"mysql,omitempty"`
	Oracle        *OracleSpec       `json:"oracle,omitempty"`
	Others        []ProcSpec        `json:"others,omitempty"`
	Self          *SelfSpec         `json:"self,omitempty"`
	Files         map[string]string `json:"files,omitempty"`
	// Posted maps a tree path to a file under posted/ copied verbatim.
	Posted map[string]string `json:"posted,omitempty"`
	// PostedTree copies posted/tree over the generated tree, file by file
	// (a host recorded verbatim, such as this development machine).
	PostedTree bool `json:"posted_tree,omitempty"`
}

// THPSpec are the three transparent_hugepage files as the kernel prints them.
type THPSpec struct {
	Enabled      string `json:"enabled"`
	Defrag       string `json:"defrag,omitempty"`
	ShmemEnabled string `json:"shmem_enabled,omitempty"`
}

// PoolSpec is one huge page size's pool; Nodes splits Total over NUMA nodes
// (default: all on node 0 with one node, evenly otherwise).
type PoolSpec struct {
	SizeKB     uint64   `json:"size_kb"`
	Total      uint64   `json:"total"`
	Free       uint64   `json:"free"`
	Rsvd       uint64   `json:"rsvd,omitempty"`
	Surplus    uint64   `json:"surplus,omitempty"`
	Overcommit uint64   `json:"overcommit,omitempty"`
	Nodes      []uint64 `json:"nodes,omitempty"`
}

// PGSpec is a running PostgreSQL instance: a postmaster, its auxiliary
// processes and Backends client backends, each having touched
// BackendShmemKB of the main segment.
type PGSpec struct {
	PID int `json:"pid"`
	// PPID is the postmaster's parent (1 by default; 0 for PID 1 in a container).
	PPID      *int              `json:"ppid,omitempty"`
	Major     int               `json:"major"`
	DataDir   string            `json:"data_dir"`
	ConfDir   string            `json:"conf_dir,omitempty"` // Debian: /etc/postgresql/15/main
	Port      int               `json:"port"`
	Bin       string            `json:"bin,omitempty"`
	Conf      map[string]string `json:"conf"`
	SegmentKB uint64            `json:"segment_kb"`
	// PageKB is the segment's page size: the base page, or a huge page size.
	PageKB         uint64 `json:"page_kb,omitempty"`
	Backends       int    `json:"backends"`
	BackendShmemKB uint64 `json:"backend_shmem_kb"`
	BackendAnonKB  uint64 `json:"backend_anon_kb,omitempty"`
	UID            int    `json:"uid,omitempty"`
	GID            int    `json:"gid,omitempty"`
	OOMScoreAdj    int    `json:"oom_score_adj,omitempty"`
	ChildOOMAdj    *int   `json:"child_oom_score_adj,omitempty"`
	Cgroup         string `json:"cgroup,omitempty"`
	ClusterName    string `json:"cluster_name,omitempty"`
}

// MySQLSpec is a running mysqld or mariadbd.
type MySQLSpec struct {
	PID     int    `json:"pid"`
	Flavor  string `json:"flavor"` // mysql, mariadb
	Version string `json:"version"`
	// UpgradeInfo writes mysql_upgrade_info (MariaDB, MySQL before 8.0.16).
	UpgradeInfo  bool   `json:"upgrade_info,omitempty"`
	DataDir      string `json:"data_dir"`
	ConfPath     string `json:"conf_path"`
	Conf         string `json:"conf"`
	BufferPoolKB uint64 `json:"buffer_pool_kb"`
	// PoolTouchedKB is the resident part of the buffer pool.
	PoolTouchedKB uint64 `json:"pool_touched_kb"`
	// PoolHugeKB > 0 maps the buffer pool in huge pages of that size.
	PoolHugeKB uint64 `json:"pool_huge_kb,omitempty"`
	// SysV puts the huge buffer pool in a SHM_HUGETLB segment (MySQL 5.x).
	SysVKey     uint32 `json:"sysv_key,omitempty"`
	OtherAnonKB uint64 `json:"other_anon_kb"`
	Threads     int    `json:"threads"`
	UID         int    `json:"uid,omitempty"`
	GID         int    `json:"gid,omitempty"`
	MemlockKB   string `json:"memlock_kb,omitempty"` // "unlimited" or kB
	OOMScoreAdj int    `json:"oom_score_adj,omitempty"`
	Cgroup      string `json:"cgroup,omitempty"`
}

// OracleSpec is an Oracle instance: background and server processes that
// attach the SGA's SysV segments.
type OracleSpec struct {
	SID       string        `json:"sid"`
	FirstPID  int           `json:"first_pid"`
	Servers   int           `json:"servers"`
	UID       int           `json:"uid"`
	GID       int           `json:"gid"`
	Huge      bool          `json:"huge"`
	MemlockKB string        `json:"memlock_kb"`
	Segments  []SegmentSpec `json:"segments"`
	PGAKB     uint64        `json:"pga_kb"` // private memory of each process
}

// SegmentSpec is one SysV segment.
type SegmentSpec struct {
	Key    uint32 `json:"key"`
	ID     int    `json:"id"`
	SizeKB uint64 `json:"size_kb"`
}

// ProcSpec is any other process (Redis, a JVM, kubelet...).
type ProcSpec struct {
	PID         int      `json:"pid"`
	PPID        int      `json:"ppid,omitempty"`
	Comm        string   `json:"comm"`
	Cmdline     []string `json:"cmdline"`
	UID         int      `json:"uid,omitempty"`
	GID         int      `json:"gid,omitempty"`
	RssAnonKB   uint64   `json:"rss_anon_kb"`
	RssFileKB   uint64   `json:"rss_file_kb,omitempty"`
	VmSizeKB    uint64   `json:"vm_size_kb,omitempty"`
	SwapKB      uint64   `json:"swap_kb,omitempty"`
	Threads     int      `json:"threads,omitempty"`
	OOMScoreAdj int      `json:"oom_score_adj,omitempty"`
	Cgroup      string   `json:"cgroup,omitempty"`
}

// SelfSpec is dbmem's own process: inside a container or not.
type SelfSpec struct {
	Cgroup    string `json:"cgroup"`
	Mountinfo string `json:"mountinfo"`
	DockerEnv bool   `json:"dockerenv,omitempty"`
}

// LoadSpec reads dir/spec.yaml strictly (unknown fields are errors).
func LoadSpec(dir string) (Spec, error) {
	var s Spec
	b, err := os.ReadFile(filepath.Join(dir, "spec.yaml"))
	if err != nil {
		return s, err
	}
	if err := yaml.UnmarshalStrict(b, &s); err != nil {
		return s, fmt.Errorf("%s/spec.yaml: %w", dir, err)
	}
	return s, nil
}
