package render

import (
	"fmt"
	"path"
	"strings"

	"github.com/dbmem/dbmem/internal/finding"
)

func postgresFiles(settings []finding.Setting, o Options) ([]File, error) {
	s := Of(settings, finding.TargetPostgres)
	if len(s) == 0 {
		return nil, nil
	}
	if o.PostgresConfDir == "" {
		return nil, fmt.Errorf("postgresql settings: the instance's conf.d directory is unknown " +
			"(add include_dir = 'conf.d' to postgresql.conf, or use ALTER SYSTEM)")
	}
	p := path.Join(o.PostgresConfDir, FileName)
	restart := restartOf(s, "a restart of PostgreSQL")
	t := newText("#")
	t.header(p+": PostgreSQL memory settings", o.Generated,
		restart+" (dbmem never restarts a database); check first with: postgres -C <name> -D <data directory>")
	for _, x := range s {
		t.explain(x, x.Name+" = "+x.Value)
		t.line(x.Name + " = " + confQuote(x.Value))
		t.blank()
	}
	return []File{{Kind: "postgresql", Path: p, Mode: 0o644, Content: t.String(),
		Then: restart + " (dbmem never restarts a database)"}}, nil
}

func alterSystem(settings []finding.Setting, o Options) (string, error) {
	s := Of(settings, finding.TargetPostgres)
	if len(s) == 0 {
		return "", fmt.Errorf("alter-system: %w", ErrNoSettings)
	}
	t := newText("--")
	t.header("PostgreSQL memory settings as ALTER SYSTEM statements (written to postgresql.auto.conf)", o.Generated,
		restartOf(s, "a restart of PostgreSQL")+"; run as a superuser: psql -f this-file")
	for _, x := range s {
		t.explain(x, x.Name+" = "+x.Value)
		t.line("ALTER SYSTEM SET " + x.Name + " = " + sqlQuote(x.Value) + ";")
		t.blank()
	}
	if r := Of(settings, finding.TargetPostgresRole); len(r) > 0 {
		roleLines(t, r)
	}
	t.line("SELECT pg_reload_conf();")
	return t.String(), nil
}

func mysqlFiles(settings []finding.Setting, o Options) ([]File, error) {
	s := Of(settings, finding.TargetMySQL)
	if len(s) == 0 {
		return nil, nil
	}
	p := path.Join(o.MySQLConfDir, mysqlFileName)
	restart := restartOf(s, "a restart of the MySQL/MariaDB server")
	t := newText("#")
	t.header(p+": MySQL/MariaDB memory settings", o.Generated, restart+" (dbmem never restarts a database)")
	t.line("[mysqld]")
	for _, x := range s {
		t.explain(x, x.Name+" = "+x.Value)
		t.line(x.Name + " = " + x.Value)
	}
	return []File{{Kind: "mysql", Path: p, Mode: 0o644, Content: t.String(), Then: restart}}, nil
}

// restartOf names what must restart, from the settings' Restart fields.
func restartOf(settings []finding.Setting, def string) string {
	for _, s := range settings {
		if s.Restart != "" {
			return "after a restart of " + s.Restart
		}
	}
	return "after " + def
}

// confQuote writes a postgresql.conf value: bare when it is a plain word or
// number, else single-quoted with quotes doubled.
func confQuote(v string) string {
	if isName(v, "._-") {
		return v
	}
	return sqlQuote(v)
}

func sqlQuote(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
