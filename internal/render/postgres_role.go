package render

import (
	"fmt"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/inert"
)

// alterRole writes per-role settings as ALTER ROLE statements, each role
// name quoted by PostgreSQL's rules for identifiers (double quotes, a
// double quote doubled). The comments print role names and formulas inert:
// a control character would end a "--" comment.
func alterRole(settings []finding.Setting, o Options) (string, error) {
	s := Of(settings, finding.TargetPostgresRole)
	if len(s) == 0 {
		return "", fmt.Errorf("alter-role: %w", ErrNoSettings)
	}
	t := newText("--")
	t.header("PostgreSQL per-role settings as ALTER ROLE statements (pg_db_role_setting)", o.Generated,
		"at each role's next session; run as a superuser or a role with CREATEROLE: psql -f this-file")
	roleLines(t, s)
	return t.String(), nil
}

// roleLines writes one commented ALTER ROLE per setting.
func roleLines(t *text, s []finding.Setting) {
	for _, x := range s {
		c := x
		c.Formula, c.Why, c.Current = inert.Text(x.Formula), inert.Text(x.Why), inert.Text(x.Current)
		t.explain(c, "role "+inert.Text(x.Role)+": "+x.Name+" = "+x.Value)
		t.line("ALTER ROLE " + quoteIdent(x.Role) + " SET " + x.Name + " = " + sqlQuote(x.Value) + ";")
		t.blank()
	}
}

// quoteIdent quotes an identifier as PostgreSQL reads it.
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// validRole: a role name dbmem writes: 1-63 bytes, no control character.
func validRole(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for _, r := range name {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}
