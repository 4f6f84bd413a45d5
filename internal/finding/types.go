package finding

import "fmt"

// Severity orders findings.
type Severity int

// Severities, least to most urgent.
const (
	Info Severity = iota
	Notice
	Warning
	Critical
)

var severityNames = []string{"info", "notice", "warning", "critical"}

func (s Severity) String() string {
	if s < 0 || int(s) >= len(severityNames) {
		return fmt.Sprintf("severity(%d)", int(s))
	}
	return severityNames[s]
}

// ParseSeverity reads "info", "notice", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if n == s {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q (want info, notice, warning or critical)", s)
}

// MarshalText writes the severity's name in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a severity's name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	*s = v
	return err
}

// Evidence is one number (or fact) a finding or setting rests on, and where
// it was read.
type Evidence struct {
	Name   string `json:"name"`   // "PageTables", "shared_buffers"
	Value  string `json:"value"`  // as shown to people: "25.0 GiB", "off"
	Source string `json:"source"` // "/proc/meminfo", "pg_settings", "postmaster smaps"
}

// Finding is one problem or risk, with what shows it, why it matters and
// what fixes it.
type Finding struct {
	ID       string     `json:"id"` // stable, e.g. "hugepages.fallback"
	Severity Severity   `json:"severity"`
	Subject  string     `json:"subject"` // "host", "postgres:5432 (/var/lib/postgresql/15/main)"
	Title    string     `json:"title"`
	Evidence []Evidence `json:"evidence"`
	Why      string     `json:"why"` // one or two sentences
	Fix      string     `json:"fix"`
	// Settings are the changes that fix it, when there are some.
	Settings []Setting `json:"settings,omitempty"`
	// BytesAtStake is the memory the finding is about: what is wasted,
	// what could be taken beyond what there is, or what the fix saves
	// (docs/findings.md). Nil when it cannot be computed: never 0 for
	// unknown. StakeFormula shows the arithmetic.
	BytesAtStake *uint64 `json:"bytes_at_stake,omitempty"`
	StakeFormula string  `json:"bytes_at_stake_formula,omitempty"`
}

// Stake sets the bytes at stake and their formula.
func (f *Finding) Stake(bytes uint64, formula string) {
	f.BytesAtStake, f.StakeFormula = &bytes, formula
}

// Target is where a setting lives.
type Target string

// Targets a setting can have.
const (
	TargetSysctl     Target = "sysctl"         // /proc/sys, persisted in /etc/sysctl.d
	TargetSysfs      Target = "sysfs"          // /sys, e.g. transparent_hugepage/enabled
	TargetPostgres   Target = "postgresql"     // postgresql.conf / ALTER SYSTEM
	TargetSystemd    Target = "systemd"        // unit drop-in: LimitMEMLOCK, OOMScoreAdjust, Environment
	TargetKernelArgs Target = "kernel-cmdline" // boot parameters (1 GiB pages)
	TargetMySQL      Target = "mysql"          // my.cnf
	TargetKubernetes Target = "kubernetes"     // pod spec: container resources
)

// How Setting.Name and Setting.Value are spelled for each Target (what
// advise.Plan produces; renderers may rely on it):
//
//   - sysctl: the dotted name, "vm.nr_hugepages"; Value as sysctl prints it.
//   - sysfs: the absolute path, "/sys/kernel/mm/transparent_hugepage/enabled"
//     or "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages";
//     Value is the word or number to write ("never", "512").
//   - postgresql: the parameter name, "huge_pages"; Value unquoted ("on",
//     "16GB"). Unit names the instance ("postgresql@15-main.service" when known).
//   - systemd: the [Service] directive, "OOMScoreAdjust", "LimitMEMLOCK" or
//     "Environment" (Value "PG_OOM_ADJUST_VALUE=0": one setting per variable);
//     Unit is the unit the drop-in is for.
//   - kernel-cmdline: the parameter name, "hugepagesz"; Value "1G". A
//     parameter without a value (none today) has Value "".
//   - kubernetes: the path in the container spec,
//     "resources.limits.hugepages-2Mi", "resources.requests.memory"; Value
//     in Kubernetes quantity syntax ("1100Mi", "60Gi").

// Setting is one value to set, with the arithmetic that produced it.
type Setting struct {
	Target Target `json:"target"`
	Name   string `json:"name"`  // "vm.nr_hugepages", "huge_pages", "LimitMEMLOCK"
	Value  string `json:"value"` // exactly what to write
	// Current is the value now, "" when unknown or not set.
	Current string `json:"current,omitempty"`
	// Unit is the systemd unit or instance the setting belongs to, when not host-wide.
	Unit string `json:"unit,omitempty"`
	// Instance names the instance (engine, port, data directory) a
	// setting is for; "" for a host-wide setting.
	Instance string `json:"instance,omitempty"`
	// Role is the database role of a per-role setting (TargetPostgresRole).
	Role string `json:"role,omitempty"`
	// Formula shows the arithmetic with the numbers filled in.
	Formula  string     `json:"formula"`
	Why      string     `json:"why"`
	Evidence []Evidence `json:"evidence,omitempty"`
	// Restart names what must restart for the value to take effect ("" = live).
	Restart string `json:"restart,omitempty"`
}

// TargetPostgresRole is a per-role setting: ALTER ROLE name SET
// parameter = value (Setting.Role names the role).
const TargetPostgresRole Target = "postgresql-role"

// Engine names.
const (
	EnginePostgres = "postgresql"
	EngineMySQL    = "mysql"
	EngineMariaDB  = "mariadb"
	EngineOracle   = "oracle"
	EngineRedis    = "redis"
	EngineMongoDB  = "mongodb"
)
