package capture

import (
	"strings"
	"testing"
)

func TestRedactSecrets(t *testing.T) {
	cases := []struct{ in, want string }{
		{"primary_conninfo = 'host=p user=rep password=s3cret port=5432'", "primary_conninfo = 'host=p user=rep password=REDACTED port=5432'"},
		{"password = 'quoted secret'", "password = REDACTED"},
		{`[client]` + "\n" + `password="x y"`, "[client]\npassword=REDACTED"},
		{"PGPASSWORD=abc psql", "PGPASSWORD=REDACTED psql"},
		{"MYSQL_PWD=abc", "MYSQL_PWD=REDACTED"},
		{"--password=hunter2", "--password=REDACTED"},
		{"postgresql://app:hunter2@db.example:5432/app", "postgresql://app:REDACTED@db.example:5432/app"},
		{"ALTER ROLE app PASSWORD 'it''s secret';", "ALTER ROLE app PASSWORD 'REDACTED';"},
		{"CREATE USER x IDENTIFIED BY 'pw'", "CREATE USER x IDENTIFIED BY 'REDACTED'"},
		{`{"statement":"password=abc\"x"}`, `{"statement":"password=REDACTED\"x"}`},
		// Not secrets: left alone.
		{"password_encryption = scram-sha-256", "password_encryption = scram-sha-256"},
		{"FATAL:  password authentication failed for user \"app\"", "FATAL:  password authentication failed for user \"app\""},
		{"shared_buffers = 128MB", "shared_buffers = 128MB"},
	}
	for _, c := range cases {
		if got, _ := RedactSecrets(c.in); got != c.want {
			t.Errorf("RedactSecrets(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestRedactCmdline(t *testing.T) {
	cases := []struct{ in, want string }{
		{"mysql\x00-uroot\x00-phunter2\x00db\x00", "mysql\x00-uroot\x00-pREDACTED\x00db\x00"},
		{"/usr/bin/mysqldump\x00--password\x00hunter2\x00db", "/usr/bin/mysqldump\x00--password\x00REDACTED\x00db"},
		{"pg_dump\x00--dbname=postgresql://u:pw@h/db\x00", "pg_dump\x00--dbname=postgresql://u:REDACTED@h/db\x00"},
		{"psql\x00host=h password=pw dbname=x\x00", "psql\x00host=h password=REDACTED dbname=x\x00"},
		{"app\x00--db-password=pw\x00", "app\x00--db-password=REDACTED\x00"},
		// -p is a port for PostgreSQL tools: kept.
		{"psql\x00-p5432\x00", "psql\x00-p5432\x00"},
		{"postgres: checkpointer \x00", "postgres: checkpointer \x00"},
	}
	for _, c := range cases {
		if got, _ := RedactCmdline([]byte(c.in)); string(got) != c.want {
			t.Errorf("RedactCmdline(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestRedactMySQLLog(t *testing.T) {
	in := "2026-11-22 21:59:53 0 [Note] Starting\nQuery (0x7f12): SELECT secret_col FROM t\nConnection ID (thread ID): 5\n"
	out, r := RedactMySQLLog([]byte(in), false)
	if strings.Contains(string(out), "secret_col") || r.Queries != 1 || !strings.Contains(string(out), "Connection ID") {
		t.Errorf("redacted:\n%s(%+v)", out, r)
	}
	if out, _ := RedactMySQLLog([]byte(in), true); string(out) != in {
		t.Errorf("with queries the log changed:\n%s", out)
	}
}
