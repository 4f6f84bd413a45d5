package postgres

import (
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// Instance is one running PostgreSQL server: its postmaster, every child
// process, its settings and its main shared memory segment.
type Instance struct {
	PostmasterPID int    `json:"postmaster_pid"`
	DataDir       string `json:"data_dir"`
	Port          int    `json:"port"`
	SocketDir     string `json:"socket_dir,omitempty"`
	Version       string `json:"version,omitempty"` // "15.19" when connected, else PG_VERSION ("15")
	Major         int    `json:"major"`
	// Connection says how settings were read: "connected as root via
	// /var/run/postgresql" or why not.
	Connection string              `json:"connection"`
	Connected  bool                `json:"connected"`
	Settings   Settings            `json:"settings"`
	Shared     *SharedSegment      `json:"shared_segment,omitempty"`
	Cgroup     *linux.CgroupMemory `json:"cgroup,omitempty"`
	// Unit is the systemd unit that runs it (RunningUnit), the one every
	// command names; "" when none does, and NoUnit says why.
	Unit      string      `json:"-"`
	NoUnit    string      `json:"-"`
	Processes []Proc      `json:"processes"`
	Gaps      []linux.Gap `json:"gaps,omitempty"`
	PIDFile   *PIDFile    `json:"pid_file,omitempty"`
	// SessionPID is the backend that served dbmem's own connection (0: not
	// connected). It is not among Processes: they are listed before dbmem
	// connects, and a later read (watch) leaves it out while it exits.
	SessionPID int `json:"session_pid,omitempty"`
	// Work is what the memory budget read over SQL (nil: not asked, or not
	// connected).
	Work *WorkStats `json:"work,omitempty"`
	// Account is the postmaster's: the files the instance names (its
	// configuration, includes, logs) are read only as it could read them.
	Account *linux.Account `json:"-"`
	// Owners is who owns the postmaster, its binary and its data directory
	// (snapshot.Take; nil when not known): only a trusted account's
	// instance shapes the host-wide plan.
	Owners   *servertrust.Ownership `json:"owners,omitempty"`
	activity map[int]Activity
	confRead bool // postgresql.conf was read: the settings are more than the command line
}

// Proc is one process of an instance with its role.
type Proc struct {
	linux.Process
	Title
}

// SharedSegment is the instance's main shared memory mapping as the
// postmaster maps it: shared_buffers and the other fixed structures.
type SharedSegment struct {
	// Path is the mapping's name: "/dev/zero (deleted)" (mmap, 4 KiB pages),
	// "/anon_hugepage (deleted)" (mmap, huge pages) or "/SYSV... (deleted)".
	Path          string `json:"path"`
	SizeBytes     uint64 `json:"size_bytes"`
	PageSizeBytes uint64 `json:"page_size_bytes"`
	Hugetlb       bool   `json:"hugetlb"`
	// PostmasterRssBytes is what the postmaster itself has touched.
	PostmasterRssBytes uint64 `json:"postmaster_rss_bytes"`
}

// Postmaster returns the postmaster's process entry.
func (in *Instance) Postmaster() (Proc, bool) {
	for _, p := range in.Processes {
		if p.Role == RolePostmaster {
			return p, true
		}
	}
	return Proc{}, false
}

// Process returns the process entry of pid.
func (in *Instance) Process(pid int) (Proc, bool) {
	for _, p := range in.Processes {
		if p.PID == pid {
			return p, true
		}
	}
	return Proc{}, false
}

// ByRole returns the processes with the given role.
func (in *Instance) ByRole(r Role) []Proc {
	var out []Proc
	for _, p := range in.Processes {
		if p.Role == r {
			out = append(out, p)
		}
	}
	return out
}
