package apply

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/render"
)

// A file dbmem writes (/etc/sysctl.d/60-dbmem.conf, a drop-in, conf.d) is
// rendered whole from a run's settings. A run that names only some of them
// (apply --set vm.zone_reclaim_mode=0 after apply --set vm.swappiness=10)
// must not drop what an earlier run persisted there: the settings of every
// standing run go into the file, the newer run's value winning.

// settingKey says which settings replace each other in a file.
func settingKey(s finding.Setting) string {
	name := s.Name
	switch {
	case s.Target == finding.TargetSysfs:
		name = render.SysfsPath(name)
	case s.Target == finding.TargetSystemd && s.Name == "Environment":
		v, _, _ := strings.Cut(s.Value, "=")
		name += ":" + v
	}
	return string(s.Target) + "|" + s.Unit + "|" + name
}

// keptSettings are the settings earlier standing runs persisted in the
// files this run rewrites and that this run does not set again, with a
// note for each.
func keptSettings(write []finding.Setting, o Options) ([]finding.Setting, []string, error) {
	all, err := Journals(o.JournalDir)
	if err != nil {
		return nil, nil, err
	}
	mine := map[string]bool{}
	for _, s := range write {
		mine[settingKey(s)] = true
	}
	targets := filePaths(write, o)
	byKey, from := map[string]finding.Setting{}, map[string]string{}
	var order []string
	for _, j := range all { // oldest first: a later run's value wins
		if j.Kind != "apply" || j.Status != StatusDone || UndoneBy(j, all) != "" {
			continue
		}
		for _, s := range j.Settings {
			k := settingKey(s)
			if mine[k] || !subset(filePaths([]finding.Setting{s}, o), targets) {
				continue
			}
			if _, seen := byKey[k]; !seen {
				order = append(order, k)
			}
			byKey[k], from[k] = s, j.ID
		}
	}
	var kept []finding.Setting
	var notes []string
	for _, k := range order {
		s := byKey[k]
		kept = append(kept, s)
		notes = append(notes, fmt.Sprintf("kept %s=%s (%s), persisted by run %s, in the file this run rewrites", s.Name, s.Value, s.Target, from[k]))
	}
	return kept, notes, nil
}

// filePaths are the paths of the files the settings render to ("" when
// they cannot be rendered here).
func filePaths(settings []finding.Setting, o Options) map[string]bool {
	files, err := render.Files(settings, o.Render)
	out := map[string]bool{}
	if err != nil {
		return out
	}
	for _, f := range files {
		out[f.Path] = true
	}
	return out
}

func subset(a, b map[string]bool) bool {
	if len(a) == 0 {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}
