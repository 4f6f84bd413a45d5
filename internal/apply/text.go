package apply

import (
	"fmt"
	"io"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
)

// WritePlan shows a plan: each live value's change, each file's unified
// diff, what is skipped, what is refused and what to do afterwards.
func WritePlan(w io.Writer, p *Plan) {
	b := &strings.Builder{}
	writeLive(b, p.Live)
	writeFileDiffs(b, p.Files)
	writeSkipped(b, p.Skipped)
	writeRefusals(b, p.Refusals)
	writeList(b, "\nNotes:\n", p.Notes)
	io.WriteString(w, b.String())
}

func writeLive(b *strings.Builder, live []Change) {
	if len(live) == 0 {
		return
	}
	b.WriteString("Live kernel values, in this order (each is read back and verified):\n")
	width := 0
	for _, c := range live {
		width = max(width, len(c.Setting.Name))
	}
	for _, c := range live {
		change := fmt.Sprintf("%s -> %s", c.Old, c.New)
		if c.Noop() {
			change = c.Old + " (unchanged)"
		}
		fmt.Fprintf(b, "  %-*s  %s\n", width, c.Setting.Name, change)
	}
}

func writeFileDiffs(b *strings.Builder, files []FileChange) {
	for _, f := range files {
		b.WriteString("\n")
		if f.Noop() {
			fmt.Fprintf(b, "%s: unchanged\n", f.Target)
			continue
		}
		from, to := f.Target+"\t(current)", f.Target+fmt.Sprintf("\t(new, mode %04o)", f.Mode)
		if !f.Exists {
			from = f.Target + "\t(does not exist)"
		}
		if f.Remove {
			to = f.Target + "\t(removed)"
		}
		b.WriteString(inert.Output(unifiedDiff(f.Old, f.Content, from, to), false)) // the old file may hold anything
	}
}

// writeSkipped lists skipped settings, those skipped for the same reason
// on one line.
func writeSkipped(b *strings.Builder, skipped []Skip) {
	if len(skipped) == 0 {
		return
	}
	b.WriteString("\nNot applied:\n")
	for i := 0; i < len(skipped); {
		var what []string
		j := i
		for ; j < len(skipped) && skipped[j].Why == skipped[i].Why; j++ {
			what = append(what, skipped[j].Setting.Name+"="+skipped[j].Setting.Value)
		}
		fmt.Fprintf(b, "  %s %s\n      %s\n", skipped[i].Setting.Target, strings.Join(what, " "), skipped[i].Why)
		i = j
	}
}

func writeRefusals(b *strings.Builder, rs []Refusal) {
	if len(rs) == 0 {
		return
	}
	b.WriteString("\nRefused (they would make the host worse; nothing will be changed):\n")
	for _, r := range rs {
		fmt.Fprintf(b, "  %s\n      %s\n      Fix: %s\n", r.Setting, r.Reason, r.Fix)
	}
}

func writeList(b *strings.Builder, title string, items []string) {
	if len(items) == 0 {
		return
	}
	b.WriteString(title)
	for _, n := range items {
		b.WriteString("  - " + n + "\n")
	}
}

// WriteJournal shows what a run did.
func WriteJournal(w io.Writer, j *Journal) {
	b := &strings.Builder{}
	for _, c := range j.Live {
		fmt.Fprintf(b, "%-8s %s: %s -> %s (the kernel reads back %s)\n", verb(j, c.Done, "set"), c.Setting.Name, c.Old, c.New, orNone(c.Got))
	}
	for _, f := range j.Files {
		what := "wrote"
		if f.Removed {
			what = "removed"
		}
		line := fmt.Sprintf("%-8s %s", verb(j, f.Done, what), f.Path)
		if f.Backup != "" {
			line += " (previous file kept as " + f.Backup + ")"
		} else if !f.Existed && !f.Removed {
			line += " (new file)"
		}
		b.WriteString(line + "\n")
	}
	switch j.Status {
	case StatusRolledBack:
		b.WriteString("\nA step failed, so every change above was undone: the host is as it was.\n")
	case StatusFailed:
		b.WriteString("\nA step failed and undoing the run failed too: check the values above and the journal.\n")
	}
	if j.Status == StatusDone {
		writeList(b, "\nNext:\n", j.Notes)
	}
	fmt.Fprintf(b, "\njournal: %s (%s)\n", j.Path, j.Status)
	if j.Status == StatusDone {
		fmt.Fprintf(b, "undo with: dbmem rollback --id %s --yes\n", j.ID)
	}
	io.WriteString(w, b.String())
}

func verb(j *Journal, done bool, v string) string {
	switch {
	case !done:
		return "not " + v
	case j.Status == StatusRolledBack:
		return v + ", undone:"
	}
	return v
}

func orNone(s string) string {
	if s == "" {
		return "nothing"
	}
	return s
}
