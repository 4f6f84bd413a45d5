package report

import (
	"encoding/json"
	"io"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/budget"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/xray"
)

// JSONSchema versions the --json document of `dbmem report`. v2: the
// snapshot is dbmem.snapshot/v2 (a number that was not read is omitted,
// never 0), summaries omit sums with an unknown term, and "skipped" lists
// the checks whose inputs were not read.
const JSONSchema = "dbmem.report/v2"

// Document is the --json form of the report: the snapshot plus each
// instance's summary.
type Document struct {
	Schema    string             `json:"schema"`
	Snapshot  *snapshot.Snapshot `json:"snapshot"`
	Summaries []InstanceSummary  `json:"summaries"`
	// Findings and Skipped are advise.Judge's with default options.
	Findings []finding.Finding `json:"findings"`
	Skipped  []advise.Skipped  `json:"skipped"`
	// PoolerLimits are, per instance a pooler points at, the server
	// connections the poolers may open to it (pooler.ServerConnections).
	PoolerLimits []InstancePoolerLimit `json:"pooler_limits,omitempty"`
	// Budgets are the instances' memory budgets (AddBudgets).
	Budgets []InstanceBudget `json:"budgets,omitempty"`
	// XRay is each instance's X-ray (report --contexts), in its own
	// schema (xray.SchemaVersion); absent without the flag.
	XRay []xray.Result `json:"xray,omitempty"`
}

// InstanceSummary ties a summary to its instance.
type InstanceSummary struct {
	PostmasterPID int `json:"postmaster_pid"`
	postgres.Summary
}

// NewDocument builds the JSON document with advise.Judge's findings on the
// snapshot alone (default options: the OOM ranking covers the database
// processes). dbmem report uses DocumentFor with the verdict check gives.
func NewDocument(s *snapshot.Snapshot) Document {
	return DocumentFor(s, advise.Judge(s, advise.Options{}))
}

// DocumentFor builds the JSON document with the findings and skipped
// checks given (the one verdict of check, watch and the exporter).
func DocumentFor(s *snapshot.Snapshot, r advise.Result) Document {
	d := Document{Schema: JSONSchema, Snapshot: s, Summaries: []InstanceSummary{}, Findings: r.Findings, Skipped: r.Skipped}
	if d.Skipped == nil {
		d.Skipped = []advise.Skipped{}
	}
	for _, in := range s.Postgres {
		d.Summaries = append(d.Summaries, InstanceSummary{PostmasterPID: in.PostmasterPID, Summary: postgres.Summarize(in)})
	}
	d.PoolerLimits = poolerLimits(s)
	return d
}

// JSON writes the document, indented.
func JSON(w io.Writer, s *snapshot.Snapshot) error { return WriteJSON(w, NewDocument(s)) }

// AddBudgets adds the instances' budgets to a document of s.
func AddBudgets(d Document, s *snapshot.Snapshot, budgets map[int]*budget.Result) Document {
	for _, in := range s.Postgres {
		if r := budgets[in.PostmasterPID]; r != nil {
			d.Budgets = append(d.Budgets, InstanceBudget{PostmasterPID: in.PostmasterPID, Result: *r})
		}
	}
	return d
}

// WriteJSON writes a document, indented.
func WriteJSON(w io.Writer, d Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
