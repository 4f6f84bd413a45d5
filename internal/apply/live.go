package apply

import (
	"fmt"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/hostchange"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/render"
)

// kernelPath is the live file of a sysctl or sysfs setting ("" for other
// targets).
func kernelPath(fs linux.FS, s finding.Setting) string {
	switch s.Target {
	case finding.TargetSysctl:
		return fs.ProcPath("sys", render.SysctlPath(s.Name))
	case finding.TargetSysfs:
		return fs.SysPath(render.SysfsPath(s.Name))
	}
	return ""
}

// readLive reads the current value of every sysctl and sysfs setting.
func readLive(settings []finding.Setting, o Options) ([]Change, error) {
	var out []Change
	for _, s := range settings {
		path := kernelPath(o.FS, s)
		if path == "" {
			continue
		}
		old, err := o.Kernel.Read(path)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w (is the name right for this kernel?)", s.Target, s.Name, err)
		}
		c := Change{Setting: s, Path: path, Old: linux.SelectedWord(old), New: s.Value}
		if pair := pairName(s.Name); pair != "" {
			pv, err := o.Kernel.Read(o.FS.ProcPath("sys", render.SysctlPath(pair)))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", pair, err)
			}
			c.PairOld = pv
		}
		out = append(out, c)
	}
	return out, nil
}

// fillCurrent sets each live setting's Current from the kernel where it is
// empty (settings given with --set), so the order (a raised ratio before
// the pool grows) and the files' "now" comments are right.
func fillCurrent(settings []finding.Setting, o Options) ([]finding.Setting, error) {
	out := append([]finding.Setting(nil), settings...)
	for i, s := range out {
		if path := kernelPath(o.FS, s); path != "" && s.Current == "" {
			v, err := o.Kernel.Read(path)
			if err != nil {
				return nil, fmt.Errorf("%s %s: %w (is the name right for this kernel?)", s.Target, s.Name, err)
			}
			out[i].Current = linux.SelectedWord(v)
		}
	}
	return out, nil
}

func isOvercommitPair(name string) bool {
	return name == "vm.overcommit_ratio" || name == "vm.overcommit_kbytes"
}

// pairName is the other of vm.overcommit_ratio and vm.overcommit_kbytes:
// the kernel zeroes one when the other is written.
func pairName(name string) string {
	switch name {
	case "vm.overcommit_ratio":
		return "vm.overcommit_kbytes"
	case "vm.overcommit_kbytes":
		return "vm.overcommit_ratio"
	}
	return ""
}

// driftNotes warn where the kernel no longer holds the value the plan was
// computed from.
func driftNotes(live []Change) []string {
	var out []string
	for _, c := range live {
		if cur := c.Setting.Current; cur != "" && !hostchange.SameValue(cur, c.Old) {
			out = append(out, fmt.Sprintf("%s is %s now, not the %s the plan was computed from: check the plan is still right",
				c.Setting.Name, c.Old, cur))
		}
	}
	return out
}

// apply writes one change, reads it back and verifies it.
func (c *Change) apply(k Kernel) error {
	if err := k.Write(c.Path, c.New); err != nil {
		return fmt.Errorf("write %s to %s: %w", c.New, c.Path, err)
	}
	c.Done = true
	got, err := k.Read(c.Path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", c.Path, err)
	}
	c.Got = linux.SelectedWord(got)
	if !hostchange.SameValue(c.Got, c.New) {
		return verifyError(*c)
	}
	return nil
}
