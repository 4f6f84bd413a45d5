package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// Validate checks that every setting can be written safely: a known target,
// a name of the right shape for it (no path tricks, no SQL), and a value
// without line breaks or control characters (which would inject lines into
// a configuration file).
func Validate(settings []finding.Setting) error {
	for _, s := range settings {
		if err := validate(s); err != nil {
			return fmt.Errorf("setting %s %q: %w", s.Target, s.Name, err)
		}
	}
	return nil
}

func validate(s finding.Setting) error {
	for _, r := range s.Value + s.Unit {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("value or unit holds a control character or line break")
		}
	}
	ok := false
	switch s.Target {
	case finding.TargetSysctl:
		ok = isName(s.Name, "._-") && strings.Contains(s.Name, ".")
	case finding.TargetSysfs:
		p := SysfsPath(s.Name)
		ok = isName(p, "/._-") && !strings.Contains(p, "..") && isName(s.Value, "._,:+-")
	case finding.TargetPostgres, finding.TargetMySQL:
		ok = isName(s.Name, "._-")
	case finding.TargetPostgresRole:
		ok = isName(s.Name, "._-") && validRole(s.Role) && !strings.Contains(s.Value, `\`)
	case finding.TargetSystemd:
		ok = isName(s.Name, "") && (s.Unit == "" || isName(s.Unit, "@.-_:\\"))
	case finding.TargetKernelArgs:
		ok = isName(s.Name, "._-") && (s.Value == "" || isName(s.Value, "._,:=+-/"))
	case finding.TargetKubernetes:
		ok = isName(s.Name, "._-") && isName(s.Value, ".")
	default:
		return fmt.Errorf("unknown target (want sysctl, sysfs, postgresql, postgresql-role, systemd, kernel-cmdline, mysql or kubernetes)")
	}
	if !ok {
		return fmt.Errorf("not a valid name for target %s", s.Target)
	}
	return nil
}

// isName reports whether s is non-empty and made of ASCII letters, digits
// and the extra characters.
func isName(s, extra string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		alnum := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !alnum && !strings.ContainsRune(extra, r) {
			return false
		}
	}
	return true
}

// SysfsPath normalises a sysfs setting's name to a path relative to /sys:
// "/sys/kernel/mm/transparent_hugepage/enabled",
// "kernel/mm/transparent_hugepage/enabled" and
// "transparent_hugepage/enabled" all give
// "kernel/mm/transparent_hugepage/enabled".
func SysfsPath(name string) string {
	p := strings.TrimPrefix(path.Clean("/"+name), "/")
	p = strings.TrimPrefix(p, "sys/")
	if strings.HasPrefix(p, "transparent_hugepage/") || strings.HasPrefix(p, "hugepages/") {
		p = "kernel/mm/" + p
	}
	return p
}

// SysctlPath maps "vm.swappiness" to "vm/swappiness" (relative to /proc/sys).
func SysctlPath(name string) string { return strings.ReplaceAll(name, ".", "/") }
