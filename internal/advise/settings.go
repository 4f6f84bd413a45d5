package advise

import "github.com/dbmem/dbmem/internal/finding"

// Constructors for the settings checks and plans produce. Names and values
// follow the conventions documented on Target.

func sysctlSetting(name, value, current, formula, why string) finding.Setting {
	return finding.Setting{Target: finding.TargetSysctl, Name: name, Value: value, Current: current, Formula: formula, Why: why}
}

func sysfsSetting(path, value, current, why string) finding.Setting {
	return finding.Setting{Target: finding.TargetSysfs, Name: path, Value: value, Current: current, Formula: value, Why: why}
}

func pgSetting(unit, name, value, current, formula, why string) finding.Setting {
	return finding.Setting{Target: finding.TargetPostgres, Name: name, Value: value, Current: current, Unit: unit,
		Formula: formula, Why: why, Restart: "PostgreSQL"}
}

func systemdSetting(unit, name, value, formula, why string) finding.Setting {
	return finding.Setting{Target: finding.TargetSystemd, Name: name, Value: value, Unit: unit, Formula: formula, Why: why,
		Restart: unit}
}
