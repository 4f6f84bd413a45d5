package pgapply

import (
	"context"
	"fmt"
	"strings"
)

// Session runs statements on the instance, each on its own, and returns
// their rows as text (internal/postgres's Connector.Exec).
type Session interface {
	Exec(ctx context.Context, stmts []string) ([][][]string, error)
}

// Plan is what a run would do. Nothing in it has happened.
type Plan struct {
	Kind    string   `json:"kind"` // "apply" or "rollback"
	Undoes  string   `json:"undoes,omitempty"`
	Changes []Change `json:"changes"`
	// Restart names the settings that take effect only at a restart.
	Restart []string `json:"restart,omitempty"`
}

// Prepare reads what the changes replace: the setting's context, each
// role's own value (pg_db_role_setting) and, for ALTER SYSTEM, the value
// in postgresql.auto.conf (pg_file_settings, superusers only). It refuses
// a setting the server does not have and a role that does not exist.
func Prepare(ctx context.Context, s Session, changes []Change) (*Plan, error) {
	p := &Plan{Kind: "apply", Changes: changes}
	if len(changes) == 0 {
		return p, nil
	}
	stmts := []string{"SELECT name, context FROM pg_settings WHERE name IN " + nameList(changes)}
	roles := roleList(changes)
	stmts = append(stmts, "SELECT rolname::text FROM pg_roles WHERE rolname IN "+roles, roleSettingsSQL(roles))
	if hasKind(changes, KindSystem) {
		stmts = append(stmts, autoConfSQL(changes))
	}
	res, err := s.Exec(ctx, stmts)
	if err != nil {
		return nil, fmt.Errorf("read the current values: %w", err)
	}
	if err := p.fill(res); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Plan) fill(res [][][]string) error {
	ctxOf := pairs(res[0])
	exists := map[string]bool{}
	for _, r := range res[1] {
		exists[r[0]] = true
	}
	roleVals := roleValues(res[2])
	var auto map[string]string
	if len(res) > 3 {
		auto = pairs(res[3])
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		ctx, ok := ctxOf[c.Name]
		if !ok {
			return fmt.Errorf("the server has no setting %q", c.Name)
		}
		c.Context = ctx
		switch c.Kind {
		case KindRole:
			if !exists[c.Role] {
				return fmt.Errorf("role %s does not exist", QuoteIdent(c.Role))
			}
			c.Old = lookup(roleVals[c.Role], c.Name)
		case KindSystem:
			c.Old = lookup(auto, c.Name)
		}
		if ctx == "postmaster" && !c.Noop() {
			p.Restart = append(p.Restart, c.Name)
		}
	}
	return nil
}

func hasKind(cs []Change, kind string) bool {
	for _, c := range cs {
		if c.Kind == kind {
			return true
		}
	}
	return false
}

// roleList is a SQL list of the roles named (the empty name when none).
func roleList(cs []Change) string {
	q := []string{"''"}
	for _, c := range cs {
		if c.Kind == KindRole {
			q = append(q, QuoteLiteral(c.Role))
		}
	}
	return "(" + strings.Join(q, ", ") + ")"
}

// roleSettingsSQL lists each role's own settings for every database.
func roleSettingsSQL(roles string) string {
	return "SELECT r.rolname::text, x FROM pg_db_role_setting s JOIN pg_roles r ON r.oid = s.setrole, unnest(s.setconfig) x " +
		"WHERE s.setdatabase = 0 AND r.rolname IN " + roles
}

// autoConfSQL reads postgresql.auto.conf's values (the last one counts).
func autoConfSQL(cs []Change) string {
	return "SELECT name, setting FROM pg_file_settings WHERE sourcefile = current_setting('data_directory') || '/postgresql.auto.conf' AND name IN " +
		nameList(cs) + " ORDER BY seqno"
}

func pairs(rows [][]string) map[string]string {
	out := map[string]string{}
	for _, r := range rows {
		if len(r) >= 2 {
			out[r[0]] = r[1]
		}
	}
	return out
}

// roleValues reads "name=value" rows per role.
func roleValues(rows [][]string) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, r := range rows {
		if len(r) < 2 {
			continue
		}
		k, v, ok := strings.Cut(r[1], "=")
		if !ok {
			continue
		}
		if out[r[0]] == nil {
			out[r[0]] = map[string]string{}
		}
		out[r[0]][k] = v
	}
	return out
}

func lookup(m map[string]string, name string) *string {
	if v, ok := m[name]; ok {
		return &v
	}
	return nil
}
