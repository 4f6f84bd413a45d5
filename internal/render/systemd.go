package render

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// systemdFiles writes one drop-in per database unit (limits, OOM score,
// environment, and an order after the /sys oneshot) and the oneshot unit
// that writes /sys values (transparent huge pages) at boot.
func systemdFiles(settings []finding.Setting, o Options) ([]File, error) {
	sysfs := Of(settings, finding.TargetSysfs)
	byUnit, units, err := unitSettings(Of(settings, finding.TargetSystemd), o.Units)
	if err != nil {
		return nil, err
	}
	var out []File
	for _, u := range units {
		if len(byUnit[u]) == 0 && len(sysfs) == 0 {
			continue
		}
		out = append(out, dropIn(u, byUnit[u], len(sysfs) > 0, o))
	}
	if len(sysfs) > 0 {
		out = append(out, sysfsUnit(sysfs, units, o))
	}
	return out, nil
}

// unitSettings groups systemd settings by unit; a setting without a unit
// goes to the first of units. It returns every unit in order.
func unitSettings(settings []finding.Setting, units []string) (map[string][]finding.Setting, []string, error) {
	by := map[string][]finding.Setting{}
	order := append([]string(nil), units...)
	for _, s := range settings {
		u := s.Unit
		if u == "" && len(units) > 0 {
			u = units[0]
		}
		if u == "" {
			return nil, nil, fmt.Errorf("systemd setting %s has no unit: name the database's unit (e.g. postgresql@15-main.service)", s.Name)
		}
		if _, seen := by[u]; !seen && !slices.Contains(order, u) {
			order = append(order, u)
		}
		by[u] = append(by[u], s)
	}
	return by, order, nil
}

func dropIn(unit string, settings []finding.Setting, sysfs bool, o Options) File {
	p := path.Join(o.SystemdDir, unit+".d", FileName)
	then := "after systemctl daemon-reload, at the next restart of " + unit + " (dbmem never restarts a database)"
	t := newText("#")
	t.header(p+": how systemd starts "+unit, o.Generated, then)
	if sysfs {
		t.line("[Unit]")
		t.comment("Kernel values in /sys (transparent huge pages) are set by "+SysfsUnit+" before the database maps its memory.", "")
		t.line("Wants=" + SysfsUnit)
		t.line("After=" + SysfsUnit)
		t.blank()
	}
	if len(settings) > 0 {
		t.line("[Service]")
	}
	for _, s := range settings {
		t.explain(s, s.Name+"="+s.Value)
		t.line(s.Name + "=" + s.Value)
	}
	return File{Kind: "systemd", Path: p, Mode: 0o644, Content: t.String(),
		Then: "systemctl daemon-reload; takes effect at the next restart of " + unit}
}

func sysfsUnit(settings []finding.Setting, units []string, o Options) File {
	p := path.Join(o.SystemdDir, SysfsUnit)
	then := "at boot, before " + orAll(units) + " (pulled in by their drop-ins; or: systemctl enable " + SysfsUnit + ")"
	t := newText("#")
	t.header(p+": kernel values in /sys for the database, set at boot", o.Generated, then)
	t.line("[Unit]")
	t.line("Description=dbmem: kernel memory settings in /sys for the database")
	t.line("DefaultDependencies=no")
	t.line("After=sysinit.target local-fs.target")
	before := "basic.target"
	for _, u := range units {
		before += " " + u
	}
	t.line("Before=" + before)
	t.blank()
	t.line("[Service]")
	t.line("Type=oneshot")
	t.line("RemainAfterExit=yes")
	for _, s := range settings {
		file := "/sys/" + SysfsPath(s.Name)
		t.explain(s, file+" = "+s.Value)
		t.line(fmt.Sprintf("ExecStart=/bin/sh -c 'echo %s > %s'", s.Value, file))
	}
	t.blank()
	t.line("[Install]")
	t.line("WantedBy=basic.target")
	return File{Kind: "systemd", Path: p, Mode: 0o644, Content: t.String(),
		Then: "systemctl daemon-reload; runs at the next boot (systemctl enable " + SysfsUnit + " to run it without the database)"}
}

func orAll(units []string) string {
	if len(units) == 0 {
		return "the database"
	}
	return strings.Join(units, ", ")
}
