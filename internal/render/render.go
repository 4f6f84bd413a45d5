package render

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// Kinds are the formats Format knows, in the order a plan shows them.
var Kinds = []string{"sysctl", "systemd", "postgresql", "alter-system", "alter-role", "mysql", "tuned", "kernel-cmdline", "kubernetes"}

// Default paths of the files Files returns.
const (
	DefaultSysctlFile   = "/etc/sysctl.d/60-dbmem.conf"
	DefaultSystemdDir   = "/etc/systemd/system"
	DefaultMySQLConfDir = "/etc/mysql/conf.d"
	DefaultGrubDir      = "/etc/default/grub.d"
	DefaultTunedProfile = "dbmem"
	// FileName is the base name of drop-ins (conf.d, systemd .d).
	FileName = "60-dbmem.conf"
	// SysfsUnit is the oneshot unit that writes /sys values at boot.
	SysfsUnit = "dbmem-sysfs.service"
)

// Base names of the files of the other kinds.
const (
	mysqlFileName = "60-dbmem.cnf"
	grubFileName  = "60-dbmem.cfg"
)

// FileNames are the base names of the files Files writes with default
// options (apply's rollback restores no other file).
func FileNames() []string {
	return []string{FileName, path.Base(DefaultSysctlFile), SysfsUnit, mysqlFileName, grubFileName}
}

// ErrNoSettings means no setting belongs to the requested kind.
var ErrNoSettings = errors.New("no settings of this kind")

// Options say where files go and what to name in them.
type Options struct {
	// Generated is shown in every header ("dbmem 1.2 on db1, 2025-03-01"); "" = "dbmem".
	Generated  string
	SysctlFile string // default DefaultSysctlFile
	SystemdDir string // default DefaultSystemdDir
	// Units are the database units that /sys values must be set before;
	// systemd settings without a Unit go to Units[0]. Default: the units
	// named by the systemd settings.
	Units []string
	// PostgresConfDir is the instance's include_dir (Debian:
	// /etc/postgresql/15/main/conf.d); "" when unknown, and then Files
	// cannot place postgresql settings.
	PostgresConfDir string
	MySQLConfDir    string // default DefaultMySQLConfDir
	GrubDir         string // default DefaultGrubDir
	TunedProfile    string // default DefaultTunedProfile
	// TunedInclude is the stock tuned profile the profile builds on
	// (tuned ships postgresql, oracle, mssql, throughput-performance...);
	// default throughput-performance. TunedIncludeFor chooses it.
	TunedInclude string
}

// File is one file to install.
type File struct {
	Kind    string      `json:"kind"`
	Path    string      `json:"path"`
	Mode    fs.FileMode `json:"mode"`
	Content string      `json:"content"`
	// Then says what makes the file take effect.
	Then string `json:"then"`
}

func (o Options) withDefaults() Options {
	def := func(s *string, d string) {
		if *s == "" {
			*s = d
		}
	}
	def(&o.Generated, "dbmem")
	def(&o.SysctlFile, DefaultSysctlFile)
	def(&o.SystemdDir, DefaultSystemdDir)
	def(&o.MySQLConfDir, DefaultMySQLConfDir)
	def(&o.GrubDir, DefaultGrubDir)
	def(&o.TunedProfile, DefaultTunedProfile)
	def(&o.TunedInclude, "throughput-performance")
	return o
}

// Format renders the settings of one kind (see Kinds) as text. It returns
// ErrNoSettings (wrapped) when no setting is of that kind.
func Format(kind string, settings []finding.Setting, o Options) (string, error) {
	if err := Validate(settings); err != nil {
		return "", err
	}
	o = o.withDefaults()
	switch kind {
	case "alter-system":
		return alterSystem(settings, o)
	case "alter-role":
		return alterRole(settings, o)
	case "tuned":
		return tuned(settings, o)
	case "kubernetes":
		return "", fmt.Errorf("kubernetes: the pod is built from the plan's instances (plan.Kubernetes, then render.Kubernetes), not from settings alone")
	}
	files, err := kindFiles(kind, settings, o)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = f.Content
	}
	return strings.Join(parts, "\n"), nil
}

// Files returns the files `dbmem apply` writes for the settings: sysctl.d,
// systemd drop-ins and the /sys oneshot unit, the postgresql and mysql
// conf.d files and the GRUB drop-in, each kind only when it has settings.
func Files(settings []finding.Setting, o Options) ([]File, error) {
	if err := Validate(settings); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	var out []File
	for _, k := range []string{"sysctl", "systemd", "postgresql", "mysql", "kernel-cmdline"} {
		fs, err := kindFiles(k, settings, o)
		if errors.Is(err, ErrNoSettings) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fs...)
	}
	return out, nil
}

// KindFiles returns the files of one kind (sysctl, systemd, postgresql,
// mysql, kernel-cmdline), each to be installed on its own: a systemd
// drop-in and the /sys oneshot unit are two files, never one stream.
func KindFiles(kind string, settings []finding.Setting, o Options) ([]File, error) {
	if err := Validate(settings); err != nil {
		return nil, err
	}
	return kindFiles(kind, settings, o.withDefaults())
}

func kindFiles(kind string, settings []finding.Setting, o Options) ([]File, error) {
	var f []File
	var err error
	switch kind {
	case "sysctl":
		f, err = sysctlFiles(settings, o)
	case "systemd":
		f, err = systemdFiles(settings, o)
	case "postgresql":
		f, err = postgresFiles(settings, o)
	case "mysql":
		f, err = mysqlFiles(settings, o)
	case "kernel-cmdline":
		f, err = cmdlineFiles(settings, o)
	default:
		return nil, fmt.Errorf("unknown format %q (want one of %s)", kind, strings.Join(Kinds, ", "))
	}
	if err == nil && len(f) == 0 {
		return nil, fmt.Errorf("%s: %w", kind, ErrNoSettings)
	}
	return f, err
}

// Of returns the settings with the given target, in their order.
func Of(settings []finding.Setting, t finding.Target) []finding.Setting {
	var out []finding.Setting
	for _, s := range settings {
		if s.Target == t {
			out = append(out, s)
		}
	}
	return out
}

// Order returns the settings in the order they must be applied: raised
// overcommit ratio/kbytes first, then huge page pools (a pool lowers
// CommitLimit), then lowered ratio/kbytes, then vm.overcommit_memory last,
// everything else after in its given order.
func Order(settings []finding.Setting) []finding.Setting {
	out := append([]finding.Setting(nil), settings...)
	sort.SliceStable(out, func(i, j int) bool { return rank(out[i]) < rank(out[j]) })
	return out
}

func rank(s finding.Setting) int {
	switch {
	case s.Target == finding.TargetSysctl && (s.Name == "vm.overcommit_ratio" || s.Name == "vm.overcommit_kbytes"):
		if raises(s) {
			return 0
		}
		return 2
	case IsPool(s):
		return 1
	case s.Target == finding.TargetSysctl && s.Name == "vm.overcommit_memory":
		return 3
	}
	return 4
}

// IsPool reports whether s sizes a huge page pool (vm.nr_hugepages or a
// /sys .../hugepages-<size>kB/nr_hugepages file).
func IsPool(s finding.Setting) bool {
	switch s.Target {
	case finding.TargetSysctl:
		return s.Name == "vm.nr_hugepages"
	case finding.TargetSysfs:
		return strings.HasSuffix(SysfsPath(s.Name), "/nr_hugepages")
	}
	return false
}

func raises(s finding.Setting) bool {
	var cur, val uint64
	_, e1 := fmt.Sscan(s.Current, &cur)
	_, e2 := fmt.Sscan(s.Value, &val)
	return e1 == nil && e2 == nil && val > cur
}
