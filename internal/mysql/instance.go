package mysql

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
)

// Flavor tells MariaDB from MySQL: defaults and the way huge pages are
// allocated differ.
type Flavor string

// Flavors.
const (
	MariaDB Flavor = "mariadb"
	MySQL   Flavor = "mysql"
)

// Instance is one running mysqld or mariadbd: one process with many
// threads (one per connection, plus InnoDB's background threads).
type Instance struct {
	PID     int    `json:"pid"`
	Flavor  Flavor `json:"flavor"`
	Version string `json:"version,omitempty"` // "10.11.19-MariaDB-0+deb12u1"
	Major   int    `json:"major,omitempty"`
	Minor   int    `json:"minor,omitempty"`
	Patch   int    `json:"patch,omitempty"`
	DataDir string `json:"data_dir,omitempty"`
	Socket  string `json:"socket,omitempty"`
	Port    int    `json:"port,omitempty"`
	// Account is the server's: the files it names are read only as it
	// could read them.
	Account *linux.Account `json:"-"`
	// Owners is who owns the server process, its binary and its data
	// directory (snapshot.Take; nil when not known).
	Owners *servertrust.Ownership `json:"owners,omitempty"`
	// OptionFiles are the my.cnf files read, in order.
	OptionFiles []string `json:"option_files,omitempty"`
	// Connection says how settings were read, or why not over SQL.
	Connection string   `json:"connection"`
	Connected  bool     `json:"connected"`
	Settings   Settings `json:"settings"`
	// Status holds the SHOW GLOBAL STATUS variables dbmem uses.
	Status map[string]string `json:"status,omitempty"`
	// PerfSchemaMemory is the performance_schema memory summary (largest
	// event names first) when it is enabled and readable.
	PerfSchemaMemory []MemoryEvent     `json:"perf_schema_memory,omitempty"`
	Process          linux.Process     `json:"process"`
	Creds            *linux.Creds      `json:"creds,omitempty"`
	Memlock          *linux.Limit      `json:"memlock,omitempty"`
	Memory           Memory            `json:"memory"`
	Cgroup           *linux.CgroupInfo `json:"cgroup,omitempty"`
	Gaps             []linux.Gap       `json:"gaps,omitempty"`
	// Unit is the systemd unit that runs it (RunningUnit), the one every
	// command names; "" when none does, and NoUnit says why.
	Unit   string `json:"-"`
	NoUnit string `json:"-"`
}

// MemoryEvent is one row of performance_schema.memory_summary_global_by_event_name.
type MemoryEvent struct {
	Event string `json:"event"`
	Bytes int64  `json:"bytes"` // CURRENT_NUMBER_OF_BYTES_USED
}

// Name is how reports name the instance: "mariadb 10.11 :3306".
func (in *Instance) Name() string {
	s := string(in.Flavor)
	if in.Major > 0 {
		s += fmt.Sprintf(" %d.%d", in.Major, in.Minor)
	}
	if in.Port > 0 {
		return s + fmt.Sprintf(" :%d", in.Port)
	}
	return s + fmt.Sprintf(" pid %d", in.PID)
}

// Known reports whether a setting's value is the server's own: from the
// server, an option file or the command line; a built-in default only when
// every option file the server reads could be read (an unreadable one may
// set it).
func (in *Instance) Known(name string) bool {
	s, ok := in.Settings[NormalizeName(name)]
	if !ok {
		return false
	}
	if s.Source != FromDefault {
		return true
	}
	for _, g := range in.Gaps {
		if strings.HasPrefix(g.What, "option file") || strings.HasPrefix(g.What, "option directory") {
			return false
		}
	}
	return true
}

// port is the port to try: the server's known port, else DefaultPort (an
// answer is verified before its settings are used).
func (in *Instance) port() int {
	if in.Port > 0 {
		return in.Port
	}
	return DefaultPort
}

// LargePages reports whether the configuration asks for huge pages.
func (in *Instance) LargePages() bool {
	v, _ := in.Settings.Bool("large_pages")
	return v
}

// StatusBytes returns a status variable as a number.
func (in *Instance) StatusBytes(name string) (uint64, bool) {
	v, ok := in.Status[name]
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	return n, err == nil
}

// gap records what could not be read, once.
func (in *Instance) gap(what, why string) {
	g := linux.Gap{What: what, Why: why}
	for _, x := range in.Gaps {
		if x == g {
			return
		}
	}
	in.Gaps = append(in.Gaps, g)
}

// setVersion parses "10.11.19-MariaDB-0+deb12u1" or "8.0.36".
func (in *Instance) setVersion(v string) {
	in.Version = strings.TrimSpace(v)
	if strings.Contains(strings.ToLower(v), "mariadb") {
		in.Flavor = MariaDB
	}
	nums := strings.FieldsFunc(in.Version, func(r rune) bool { return r < '0' || r > '9' })
	dst := []*int{&in.Major, &in.Minor, &in.Patch}
	for i := 0; i < len(nums) && i < 3; i++ {
		*dst[i], _ = strconv.Atoi(nums[i])
	}
}

// AtLeast compares the version with major.minor.patch.
func (in *Instance) AtLeast(major, minor, patch int) bool {
	a := [3]int{in.Major, in.Minor, in.Patch}
	b := [3]int{major, minor, patch}
	for i := range a {
		if a[i] != b[i] {
			return a[i] > b[i]
		}
	}
	return true
}
