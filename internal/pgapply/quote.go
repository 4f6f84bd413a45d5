package pgapply

import (
	"fmt"
	"strings"
)

// maxIdent is PostgreSQL's NAMEDATALEN - 1: longer names are truncated
// by the server, so they never name the role asked for.
const maxIdent = 63

// QuoteIdent quotes a name by PostgreSQL's rules for identifiers: in
// double quotes, a double quote doubled. Case, spaces, "@" and Unicode
// survive as written.
func QuoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// QuoteLiteral quotes a value as a string constant, a quote doubled. It
// is only given values CheckValue accepted (no backslash: with
// standard_conforming_strings off it would escape).
func QuoteLiteral(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }

// CheckRole refuses a role name that cannot be written safely: empty,
// longer than PostgreSQL keeps, or holding a control character or NUL.
func CheckRole(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("empty role name")
	case len(name) > maxIdent:
		return fmt.Errorf("role name %q is longer than %d bytes: PostgreSQL would truncate it", name, maxIdent)
	}
	for _, r := range name {
		if r < ' ' || r == 0x7f {
			return fmt.Errorf("role name %q holds a control character: dbmem writes no such name (ALTER ROLE it by hand)", name)
		}
	}
	return nil
}

// CheckName refuses a parameter name that is not a plain word.
func CheckName(name string) error {
	if name == "" {
		return fmt.Errorf("empty setting name")
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return fmt.Errorf("setting name %q: want letters, digits, '_' and '.'", name)
		}
	}
	return nil
}

// CheckValue refuses a value with a backslash or a control character.
func CheckValue(v string) error {
	for _, r := range v {
		if r < ' ' || r == 0x7f || r == '\\' {
			return fmt.Errorf("value %q holds a backslash or a control character", v)
		}
	}
	return nil
}
