package archetype

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Expect is the verdict a senior DBA/SRE wrote for an archetype
// (expect.yaml), before and independently of dbmem's output.
type Expect struct {
	// Verdict is the one-paragraph judgment docs/archetypes.md shows.
	Verdict string      `json:"verdict"`
	Check   CheckExpect `json:"check"`
	Plan    PlanExpect  `json:"plan"`
}

// CheckExpect lists the findings that must be raised (with their
// severity), those that may be raised up to a severity, and those that
// must not be. Any other finding at notice or above is a mismatch.
type CheckExpect struct {
	Raise    []FindingExpect `json:"raise"`
	Allow    []FindingExpect `json:"allow,omitempty"`
	NotRaise []FindingExpect `json:"not_raise,omitempty"`
}

// FindingExpect is one finding as expected.
type FindingExpect struct {
	ID       string `json:"id"`
	Severity string `json:"severity,omitempty"`
	// Subject, when set, must be part of the finding's subject.
	Subject string `json:"subject,omitempty"`
	// Says are words the finding's text must hold; NeverSays words it
	// must not hold (case-insensitive, over title, evidence, why and fix).
	Says      []string `json:"says,omitempty"`
	NeverSays []string `json:"never_says,omitempty"`
	Why       string   `json:"why"`
}

// PlanExpect constrains `dbmem plan` on the archetype.
type PlanExpect struct {
	Options  PlanOptions     `json:"options,omitempty"`
	Settings []SettingExpect `json:"settings"`
	// CommitLimitMaxGiB bounds the CommitLimit the plan promises (the
	// kernel's arithmetic with the pool as it will be); CommitLimitMinGiB
	// keeps it above what is committed now.
	CommitLimitMaxGiB float64  `json:"commit_limit_max_gib,omitempty"`
	CommitLimitMinGiB float64  `json:"commit_limit_min_gib,omitempty"`
	NotesSay          []string `json:"notes_say,omitempty"`
	NotesNeverSay     []string `json:"notes_never_say,omitempty"`
}

// PlanOptions are the `dbmem plan` flags the expectation is for.
type PlanOptions struct {
	PageSize string `json:"page_size,omitempty"` // "1GiB"
	Dynamic  bool   `json:"dynamic,omitempty"`
}

// SettingExpect constrains the planned settings of one target and name
// (all of them when the plan has several, such as per-unit settings).
type SettingExpect struct {
	Target string `json:"target"`
	Name   string `json:"name"`
	// Value must be planned exactly (implies Required).
	Value string `json:"value,omitempty"`
	// Min and Max bound a numeric value; Not forbids one value.
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	Not      string   `json:"not,omitempty"`
	Absent   bool     `json:"absent,omitempty"`
	Required bool     `json:"required,omitempty"`
	Why      string   `json:"why"`
}

// LoadExpect reads dir/expect.yaml strictly.
func LoadExpect(dir string) (Expect, error) {
	var e Expect
	b, err := os.ReadFile(filepath.Join(dir, "expect.yaml"))
	if err != nil {
		return e, err
	}
	if err := yaml.UnmarshalStrict(b, &e); err != nil {
		return e, fmt.Errorf("%s/expect.yaml: %w", dir, err)
	}
	for _, f := range append(append([]FindingExpect(nil), e.Check.Raise...), e.Check.NotRaise...) {
		if f.Why == "" {
			return e, fmt.Errorf("%s/expect.yaml: finding %s has no why", dir, f.ID)
		}
	}
	for _, s := range e.Plan.Settings {
		if s.Why == "" {
			return e, fmt.Errorf("%s/expect.yaml: setting %s has no why", dir, s.Name)
		}
	}
	return e, nil
}
