package report

import (
	"fmt"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/inert"
	"github.com/dbmem/dbmem/internal/pooler"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/texttable"
)

// writePoolers renders the POOLERS section: each pooler, its pools, and
// the server connections the poolers may open to each PostgreSQL
// instance. Nothing when no pooler runs.
func writePoolers(b *strings.Builder, s *snapshot.Snapshot, st style) {
	if len(s.Poolers) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s  %d running; PostgreSQL pays for their server connections, not for their clients\n", st.head("POOLERS"), len(s.Poolers))
	for _, p := range s.Poolers {
		writePooler(b, p, st)
	}
	for _, pl := range poolerLimits(s) {
		writePoolerLimit(b, fmt.Sprintf("PostgreSQL postmaster %d, port %s", pl.PostmasterPID, portText(pl.Target.Port)), pl, st)
	}
}

func portText(p int) string {
	if p == 0 {
		return "unknown"
	}
	return fmt.Sprint(p)
}

// writePooler shows one pooler: its files, its console, its settings and
// its pools.
func writePooler(b *strings.Builder, p *pooler.Pooler, st style) {
	files := inert.Text(p.ConfigFile)
	if n := len(p.Files) - 1; n > 0 {
		files += fmt.Sprintf(" (+%d included)", n)
	}
	fmt.Fprintf(b, "  %s %d (%s)  %s\n", p.Kind, p.PID, inert.Text(p.Account), files)
	item(b, "Console", inert.Text(p.Connection), nil)
	if set := p.SettingsText(); len(set) > 0 {
		// Files by their base name here: the paths are on the line above.
		text := strings.ReplaceAll(strings.Join(set, ", "), path.Dir(p.ConfigFile)+"/", "")
		item(b, "Settings", inert.Text(text), nil)
	}
	for _, pr := range p.Problems {
		item(b, "Problem", inert.Text(pr.String()), st.warn)
	}
	switch {
	case p.Refused && p.Console != nil:
		item(b, "", "the files would not load as they stand: the pooler runs with what it loaded last, and its pools below are its console's", nil)
	case p.Refused:
		item(b, "", "the files would not load as they stand and the console was not read: the pooler's pools are unknown", st.warn)
	}
	if c := p.PgBouncer; c != nil {
		for _, n := range c.Notes {
			item(b, "Note", inert.Text(n), nil)
		}
	}
	if len(p.NotRead) > 0 {
		item(b, "Not read", inert.Text(strings.Join(p.NotRead, "; ")), nil)
	}
	rows := p.Rows()
	if len(rows) == 0 {
		return
	}
	t := texttable.New("DATABASE", "SERVER", "USER", "MODE", ">POOL", ">RESERVE", ">MAX_DB", ">OPEN", ">ACTIVE", ">WAITING").
		Fit(st.width).Drop("SERVER", "RESERVE")
	for _, r := range rows {
		t.Add(r.Database, r.Server, r.User, r.Mode, r.Pool, r.Reserve, r.MaxDB, r.Open, r.Active, r.Waiting)
	}
	b.WriteString(t.Render("    "))
}

// writePoolerLimit shows the bound toward one instance, its formula and
// what was measured.
func writePoolerLimit(b *strings.Builder, to string, pl InstancePoolerLimit, st style) {
	l := pl.Limit
	head := fmt.Sprintf("at most %d server connections", l.Max)
	if !l.Known {
		head = st.warn(fmt.Sprintf("no known bound (at least %d server connections)", l.Max))
	}
	fmt.Fprintf(b, "  To %s: %s%s\n", to, head, modesText(l))
	item(b, "Formula", inert.Text(l.Formula), nil)
	if m := l.Measured; m != nil {
		line := fmt.Sprintf("%d server connections open (%d active), %d clients active, %d waiting", m.Servers, m.ServersActive, m.ClientsActive, m.ClientsWaiting)
		if m.ClientsWaiting > 0 {
			line += fmt.Sprintf(" (longest %d s): the pools were full", m.MaxWaitSeconds)
		}
		if !m.Complete {
			line += "; not every pooler's console was read"
		}
		item(b, "Measured", line, nil)
	}
	for _, g := range l.Gaps {
		item(b, "Unbounded", inert.Text(g), st.warn)
	}
	for _, f := range pl.Advice.Findings {
		colour := st.warn
		if f.Severity != "warning" {
			colour = nil
		}
		item(b, "Finding", inert.Text(f.Severity+": "+f.Title+". Fix: "+f.Fix), colour)
	}
	for _, c := range pl.Advice.Changes {
		item(b, "Change", inert.Text(c.Command+" ("+c.Why+")"), nil)
	}
	for _, e := range l.Evidence {
		item(b, "Evidence", inert.Text(e), nil)
	}
}

func modesText(l pooler.Limit) string {
	if len(l.ByMode) < 2 {
		for m := range l.ByMode {
			return ", " + m + " pooling"
		}
		return ""
	}
	var parts []string
	for _, m := range []string{"session", "transaction", "statement"} {
		if n, ok := l.ByMode[m]; ok {
			parts = append(parts, fmt.Sprintf("%s %d", m, n))
		}
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// item writes "    Label        text", the text wrapped under itself and
// coloured line by line (a colour code must not be cut).
func item(b *strings.Builder, label, text string, colour func(string) string) {
	for i, line := range wrapWords(strings.Fields(text), 100) {
		if i > 0 {
			label = ""
		}
		if colour != nil {
			line = colour(line)
		}
		fmt.Fprintf(b, "    %-12s %s\n", label, line)
	}
}

// InstancePoolerLimit ties a pooler limit to its instance.
type InstancePoolerLimit struct {
	PostmasterPID int           `json:"postmaster_pid"`
	Target        pooler.Target `json:"target"`
	pooler.Limit
	// Advice holds the findings on these pools against the instance's
	// max_connections (pooler.Advise).
	Advice pooler.Advice `json:"advice"`
}

// poolerLimits computes, for every instance some pooler points at (or may
// point at), the limit of the poolers toward it.
func poolerLimits(s *snapshot.Snapshot) []InstancePoolerLimit {
	var out []InstancePoolerLimit
	for _, in := range s.Postgres {
		t := pooler.TargetOf(in)
		if l := pooler.ServerConnections(s.Poolers, t); len(l.Pools) > 0 || len(l.Gaps) > 0 {
			out = append(out, InstancePoolerLimit{PostmasterPID: in.PostmasterPID, Target: t, Limit: l, Advice: poolerAdvice(in, l)})
		}
	}
	return out
}

// poolerAdvice judges the pools against the instance's max_connections
// less superuser_reserved_connections (when read; reserved_connections
// of PostgreSQL 16+ is not read, so the room may be smaller still).
func poolerAdvice(in *postgres.Instance, l pooler.Limit) pooler.Advice {
	maxConn, _ := in.Settings.Int("max_connections")
	reserved, _ := in.Settings.Int("superuser_reserved_connections")
	return pooler.Advise(pooler.AdviceInput{Engine: "PostgreSQL", MaxConnections: int(maxConn), Reserved: int(reserved), Limit: &l})
}
