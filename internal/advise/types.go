package advise

import "github.com/dbmem/dbmem/internal/finding"

// The types of findings and settings live in the leaf package
// internal/finding (so that renderers need not import advise); these
// names keep advise's callers as they were.
type (
	Severity = finding.Severity
	Evidence = finding.Evidence
	Finding  = finding.Finding
	Target   = finding.Target
	Setting  = finding.Setting
)

// Severities, least to most urgent.
const (
	Info     = finding.Info
	Notice   = finding.Notice
	Warning  = finding.Warning
	Critical = finding.Critical
)

// ParseSeverity reads "info", "notice", "warning" or "critical".
func ParseSeverity(s string) (Severity, error) { return finding.ParseSeverity(s) }

// Targets a setting can have (see finding.Setting for how each is spelled).
const (
	TargetSysctl       = finding.TargetSysctl
	TargetSysfs        = finding.TargetSysfs
	TargetPostgres     = finding.TargetPostgres
	TargetSystemd      = finding.TargetSystemd
	TargetKernelArgs   = finding.TargetKernelArgs
	TargetMySQL        = finding.TargetMySQL
	TargetKubernetes   = finding.TargetKubernetes
	TargetPostgresRole = finding.TargetPostgresRole
)
