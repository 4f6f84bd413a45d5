package pgapply

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/dbmem/dbmem/internal/units"
)

// VerifyTimeout bounds the wait for the server to take a reload: the
// postmaster rereads its files when it gets SIGHUP, shortly after
// pg_reload_conf() returns.
var VerifyTimeout = 2 * time.Minute

// sameValue compares a value as written with one as the server shows it:
// memory in bytes (unit is pg_settings.unit, "" when unknown), booleans by
// truth, numbers by value, the rest as written.
func sameValue(want, got, unit string) bool {
	if strings.EqualFold(strings.TrimSpace(want), strings.TrimSpace(got)) {
		return true
	}
	base := unit
	base = cmp.Or(base, "kB")
	a, err1 := units.ParsePG(want, base)
	b, err2 := units.ParsePG(got, base)
	if err1 == nil && err2 == nil && (unit != "" || hasUnit(want) || hasUnit(got)) {
		return a == b
	}
	if x, ok := truth(want); ok {
		y, ok2 := truth(got)
		return ok2 && x == y
	}
	f, err1 := strconv.ParseFloat(want, 64)
	g, err2 := strconv.ParseFloat(got, 64)
	return err1 == nil && err2 == nil && f == g
}

func hasUnit(v string) bool { return strings.IndexAny(v, "kMGTB") > 0 }

func truth(v string) (bool, bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

// verify reads the values back from a new session until every change is
// in place (a postmaster setting only pending a restart), or the timeout.
func verify(ctx context.Context, s Session, p *Plan) error {
	deadline := time.Now().Add(VerifyTimeout)
	for {
		err := check(ctx, s, p)
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func check(ctx context.Context, s Session, p *Plan) error {
	res, err := s.Exec(ctx, []string{
		"SELECT name, setting, coalesce(unit, ''), pending_restart::text FROM pg_settings WHERE name IN " + nameList(p.Changes),
		roleSettingsSQL(roleList(p.Changes))})
	if err != nil {
		return fmt.Errorf("read the values back: %w", err)
	}
	shown := map[string][]string{}
	for _, r := range res[0] {
		shown[r[0]] = r
	}
	roles := roleValues(res[1])
	var bad []string
	for i := range p.Changes {
		if msg := p.Changes[i].checkWith(shown, roles); msg != "" {
			bad = append(bad, msg)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("the server did not take: %s", strings.Join(bad, "; "))
	}
	return nil
}

// checkWith says what is wrong with one change as the server shows it
// ("" when it is in place), and records what it showed.
func (c *Change) checkWith(shown map[string][]string, roles map[string]map[string]string) string {
	if c.Kind == KindRole {
		got, ok := roles[c.Role][c.Name]
		c.Got = got
		switch {
		case c.Reset && ok:
			return fmt.Sprintf("role %s still has %s = %s", QuoteIdent(c.Role), c.Name, got)
		case !c.Reset && (!ok || !sameValue(c.New, got, "")):
			return fmt.Sprintf("role %s has %s = %q, not %s (pg_db_role_setting)", QuoteIdent(c.Role), c.Name, got, c.New)
		}
		return ""
	}
	r := shown[c.Name]
	if len(r) < 4 {
		return c.Name + " is not in pg_settings"
	}
	c.Got = r[1] + r[2]
	if c.Reset || sameValue(c.New, r[1], r[2]) || r[3] == "true" && c.Context == "postmaster" {
		return ""
	}
	return fmt.Sprintf("%s is %s%s, not %s (SHOW; a later file or ALTER SYSTEM may set it: SELECT * FROM pg_file_settings WHERE name = '%s')",
		c.Name, r[1], r[2], c.New, c.Name)
}
