package report

import (
	"encoding/json"
	"io"

	"github.com/dbmem/dbmem/internal/advise"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// JSONSchema versions the --json document of `dbmem report`.
const JSONSchema = "dbmem.report/v1"

// Document is the --json form of the report: the snapshot plus each
// instance's summary.
type Document struct {
	Schema    string             `json:"schema"`
	Snapshot  *snapshot.Snapshot `json:"snapshot"`
	Summaries []InstanceSummary  `json:"summaries"`
	// Findings are advise.Check's with default options.
	Findings []advise.Finding `json:"findings"`
}

// InstanceSummary ties a summary to its instance.
type InstanceSummary struct {
	PostmasterPID int `json:"postmaster_pid"`
	postgres.Summary
}

// NewDocument builds the JSON document.
func NewDocument(s *snapshot.Snapshot) Document {
	d := Document{Schema: JSONSchema, Snapshot: s, Summaries: []InstanceSummary{}, Findings: advise.Check(s, advise.Options{})}
	for _, in := range s.Postgres {
		d.Summaries = append(d.Summaries, InstanceSummary{PostmasterPID: in.PostmasterPID, Summary: postgres.Summarize(in)})
	}
	return d
}

// JSON writes the document, indented.
func JSON(w io.Writer, s *snapshot.Snapshot) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(NewDocument(s))
}
