package render

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// tuned renders a tuned profile: [sysctl] values, transparent huge pages in
// [vm] and the kernel command line in [bootloader].
func tuned(settings []finding.Setting, o Options) (string, error) {
	sys := Order(Of(settings, finding.TargetSysctl))
	thp, otherSysfs := splitTHP(Of(settings, finding.TargetSysfs))
	args := Of(settings, finding.TargetKernelArgs)
	if len(sys)+len(thp)+len(otherSysfs)+len(args) == 0 {
		return "", fmt.Errorf("tuned: %w", ErrNoSettings)
	}
	p := "/etc/tuned/" + o.TunedProfile + "/tuned.conf"
	t := newText("#")
	t.header(p+": a tuned profile with the database's memory settings", o.Generated,
		"tuned-adm profile "+o.TunedProfile+" (sysctl and vm now; bootloader at the next boot)")
	t.comment("tuned re-applies /run/sysctl.d, /etc/sysctl.d and /etc/sysctl.conf after a profile's [sysctl] "+
		"(reapply_sysctl = 1, the default in /etc/tuned/tuned-main.conf): a key set there wins over this profile. "+
		"Use this profile or dbmem's "+DefaultSysctlFile+", not both, and remove other values of these keys from "+
		"/etc/sysctl.d and /etc/sysctl.conf (or set reapply_sysctl = 0).", "")
	t.blank()
	t.line("[main]")
	t.line("summary=dbmem: memory settings for a database server")
	t.comment("Everything "+o.TunedInclude+" (a profile tuned ships) sets, then the values below, which win over it.", "")
	t.line("include=" + o.TunedInclude)
	section(t, "sysctl", sys, func(s finding.Setting) string { return s.Name + "=" + s.Value })
	section(t, "vm", thp, func(s finding.Setting) string { return "transparent_hugepages=" + s.Value })
	section(t, "sysfs", otherSysfs, func(s finding.Setting) string { return "/sys/" + SysfsPath(s.Name) + "=" + s.Value })
	if len(args) > 0 {
		t.blank()
		t.line("[bootloader]")
		for _, a := range args {
			t.explain(a, strings.TrimSuffix(a.Name+"="+a.Value, "="))
		}
		t.line("cmdline=" + cmdlineWords(args))
	}
	return t.String(), nil
}

func section(t *text, name string, s []finding.Setting, line func(finding.Setting) string) {
	if len(s) == 0 {
		return
	}
	t.blank()
	t.line("[" + name + "]")
	for _, x := range s {
		l := line(x)
		t.explain(x, l)
		t.line(l)
	}
}

// splitTHP separates transparent_hugepage/enabled (tuned's [vm] plugin) from
// other /sys values.
func splitTHP(s []finding.Setting) (thp, other []finding.Setting) {
	for _, x := range s {
		if SysfsPath(x.Name) == "kernel/mm/transparent_hugepage/enabled" {
			thp = append(thp, x)
		} else {
			other = append(other, x)
		}
	}
	return thp, other
}

// TunedIncludeFor is the stock tuned profile that matches the engines: the
// postgresql profile (tuned 2.x) when PostgreSQL is the only one, else
// throughput-performance, which tuned's postgresql and oracle profiles
// build on themselves.
func TunedIncludeFor(engines []string) string {
	for _, e := range engines {
		if e != finding.EnginePostgres {
			return "throughput-performance"
		}
	}
	if len(engines) == 0 {
		return "throughput-performance"
	}
	return "postgresql"
}
