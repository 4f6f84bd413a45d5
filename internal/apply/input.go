package apply

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

// ParseSet reads one --set argument: "[target:]name=value". Without a
// target, a dotted name (vm.swappiness) is a sysctl and a name with a slash
// (transparent_hugepage/enabled) is a sysfs file; anything else needs its
// target: "postgresql:huge_pages=on", "systemd:LimitMEMLOCK=infinity",
// "kernel-cmdline:hugepages=16", "mysql:large_pages=ON".
func ParseSet(arg string) (finding.Setting, error) {
	kv, value, ok := strings.Cut(arg, "=")
	if !ok || kv == "" {
		return finding.Setting{}, fmt.Errorf("--set %q: want [target:]name=value", arg)
	}
	target, name, hasTarget := strings.Cut(kv, ":")
	if !hasTarget {
		name = kv
		switch {
		case strings.Contains(name, "/"):
			target = string(finding.TargetSysfs)
		case strings.Contains(name, "."):
			target = string(finding.TargetSysctl)
		default:
			return finding.Setting{}, fmt.Errorf("--set %q: name the target, e.g. postgresql:%s or systemd:%s", arg, kv, kv)
		}
	}
	s := finding.Setting{Target: finding.Target(target), Name: strings.TrimSpace(name), Value: strings.TrimSpace(value),
		Formula: "given on the command line (--set " + arg + ")"}
	return s, nil
}

// ReadPlan reads settings as JSON: either an array of settings (the
// advise.Setting fields: target, name, value, current, unit, formula, why,
// evidence, restart) or an object with such an array under "settings"
// (the shape of `dbmem plan --json`); other fields are ignored.
func ReadPlan(r io.Reader) ([]finding.Setting, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var list []finding.Setting
	if err := json.Unmarshal(b, &list); err == nil {
		return list, nil
	}
	var doc struct {
		Settings *[]finding.Setting `json:"settings"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("want a JSON array of settings or an object with \"settings\": %w", err)
	}
	if doc.Settings == nil {
		return nil, fmt.Errorf("the JSON object has no \"settings\" array")
	}
	return *doc.Settings, nil
}
