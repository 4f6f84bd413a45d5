package render

import (
	"github.com/dbmem/dbmem/internal/finding"
)

func sysctlFiles(settings []finding.Setting, o Options) ([]File, error) {
	s := Order(Of(settings, finding.TargetSysctl))
	if len(s) == 0 {
		return nil, nil
	}
	then := "at boot (systemd-sysctl reads /etc/sysctl.d in file-name order; a later file " +
		"such as 99-sysctl.conf wins), or now with: sysctl -p " + o.SysctlFile
	t := newText("#")
	t.header(o.SysctlFile+": kernel memory settings for the database", o.Generated, then)
	t.comment("Order matters: huge page pools come before vm.overcommit_* because the pool lowers CommitLimit.", "")
	t.blank()
	for _, x := range s {
		t.explain(x, x.Name+" = "+x.Value)
		t.line(x.Name + " = " + x.Value)
		t.blank()
	}
	return []File{{Kind: "sysctl", Path: o.SysctlFile, Mode: 0o644, Content: t.String(),
		Then: "sysctl -p " + o.SysctlFile + " (dbmem apply sets the values live), and at every boot"}}, nil
}
