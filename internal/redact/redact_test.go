package redact

import (
	"strings"
	"testing"
)

func TestSecrets(t *testing.T) {
	cases := []struct{ in, want string }{
		{"primary_conninfo = 'host=p user=rep password=s3cret port=5432'", "primary_conninfo = 'host=p user=rep password=REDACTED port=5432'"},
		{"password = 'quoted secret'", "password = REDACTED"},
		{"shop = host=/run/postgresql password='a b''c' pool_size=3", "shop = host=/run/postgresql password=REDACTED pool_size=3"},
		{"app = password='' user=x", "app = password=REDACTED user=x"},
		{`[client]` + "\n" + `password="x y"`, "[client]\npassword=REDACTED"},
		{"PGPASSWORD=abc psql", "PGPASSWORD=REDACTED psql"},
		{"MYSQL_PWD=abc", "MYSQL_PWD=REDACTED"},
		{"--password=hunter2", "--password=REDACTED"},
		{"postgresql://app:hunter2@db.example:5432/app", "postgresql://app:REDACTED@db.example:5432/app"},
		{"ALTER ROLE app PASSWORD 'it''s secret';", "ALTER ROLE app PASSWORD 'REDACTED';"},
		{"CREATE USER x IDENTIFIED BY 'pw'", "CREATE USER x IDENTIFIED BY 'REDACTED'"},
		{`{"statement":"password=abc\"x"}`, `{"statement":"password=REDACTED\"x"}`},
		// MySQL/MariaDB account statements.
		{"SET PASSWORD = PASSWORD('x1')", "SET PASSWORD = PASSWORD('REDACTED')"},
		{"SET PASSWORD FOR 'app'@'%' = PASSWORD(\"x2\");", "SET PASSWORD FOR 'app'@'%' = PASSWORD(\"REDACTED\");"},
		{"SET PASSWORD FOR app@localhost = OLD_PASSWORD('x3')", "SET PASSWORD FOR app@localhost = OLD_PASSWORD('REDACTED')"},
		{"SET PASSWORD FOR 'app'@'localhost' = 'x4'", "SET PASSWORD FOR 'app'@'localhost' = 'REDACTED'"},
		{"SET PASSWORD = 'x5'", "SET PASSWORD = REDACTED"},
		{"ALTER USER 'app'@'%' IDENTIFIED BY 'x6' REPLACE 'old7'", "ALTER USER 'app'@'%' IDENTIFIED BY 'REDACTED' REPLACE 'REDACTED'"},
		{"CREATE USER app IDENTIFIED BY \"x8\" PASSWORD EXPIRE", "CREATE USER app IDENTIFIED BY \"REDACTED\" PASSWORD EXPIRE"},
		{"CREATE USER a IDENTIFIED WITH mysql_native_password BY 'x9'", "CREATE USER a IDENTIFIED WITH mysql_native_password BY 'REDACTED'"},
		{"ALTER USER a IDENTIFIED WITH 'caching_sha2_password' AS '$A$005$hash'", "ALTER USER a IDENTIFIED WITH 'caching_sha2_password' AS 'REDACTED'"},
		{"CREATE USER a IDENTIFIED VIA ed25519 USING PASSWORD('x10') OR unix_socket", "CREATE USER a IDENTIFIED VIA ed25519 USING PASSWORD('REDACTED') OR unix_socket"},
		{"CREATE USER a IDENTIFIED VIA mysql_native_password USING '*ABCDEF'", "CREATE USER a IDENTIFIED VIA mysql_native_password USING 'REDACTED'"},
		{"GRANT ALL ON *.* TO a IDENTIFIED BY PASSWORD '*ABCDEF'", "GRANT ALL ON *.* TO a IDENTIFIED BY PASSWORD 'REDACTED'"},
		{"CHANGE MASTER TO MASTER_USER='rep', MASTER_PASSWORD='x11'", "CHANGE MASTER TO MASTER_USER='rep', MASTER_PASSWORD=REDACTED"},
		{"Query: CREATE USER x IDENTIFIED BY 'cut short", "Query: CREATE USER x IDENTIFIED BY 'REDACTED'"},
		// PostgreSQL role statements and conninfo.
		{"ALTER ROLE app WITH ENCRYPTED PASSWORD 'x12' VALID UNTIL 'infinity'", "ALTER ROLE app WITH ENCRYPTED PASSWORD 'REDACTED' VALID UNTIL 'infinity'"},
		{"alter role app password E'x13'", "alter role app password E'REDACTED'"},
		{"CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'u', password 'x14')", "CREATE USER MAPPING FOR app SERVER s OPTIONS (user 'u', password 'REDACTED')"},
		{"CREATE SUBSCRIPTION s CONNECTION 'host=p password=x15 dbname=d'", "CREATE SUBSCRIPTION s CONNECTION 'host=p password=REDACTED dbname=d'"},
		{"host=p port=5432 password = x16 user=rep", "host=p port=5432 password = REDACTED user=rep"},
		// Command lines written out: a unit file, a cron line.
		{"ExecStart=/usr/bin/mysqldump -uroot -px17 --all-databases", "ExecStart=/usr/bin/mysqldump -uroot -pREDACTED --all-databases"},
		{"0 3 * * * mariadb-dump -u root -px18 db | gzip > /b.gz", "0 3 * * * mariadb-dump -u root -pREDACTED db | gzip > /b.gz"},
		{"mysql --user=root --password=x19 -e 'select 1'", "mysql --user=root --password=REDACTED -e 'select 1'"},
		{"mysql --pass=x20", "mysql --pass=REDACTED"},
		// Not secrets: left alone.
		{"psql -p5432 -c 'select 1'", "psql -p5432 -c 'select 1'"},
		{"mysql -P3307 -h db", "mysql -P3307 -h db"},
		{"IDENTIFIED BY RANDOM PASSWORD", "IDENTIFIED BY RANDOM PASSWORD"},
		{"SELECT REPLACE(name, 'a', 'b') FROM t", "SELECT REPLACE(name, 'a', 'b') FROM t"},
		{"password_encryption = scram-sha-256", "password_encryption = scram-sha-256"},
		{"FATAL:  password authentication failed for user \"app\"", "FATAL:  password authentication failed for user \"app\""},
		{"shared_buffers = 128MB", "shared_buffers = 128MB"},
	}
	for _, c := range cases {
		got, n := Secrets(c.in)
		if got != c.want {
			t.Errorf("Secrets(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if want := strings.Count(c.want, Redacted); n != want {
			t.Errorf("Secrets(%q) counts %d secrets, want %d", c.in, n, want)
		}
		if again, k := Secrets(got); again != got || k != 0 {
			t.Errorf("Secrets is not idempotent on %q: %q, %d more", got, again, k)
		}
	}
}

func TestCmdline(t *testing.T) {
	cases := []struct{ in, want string }{
		{"mysql\x00-uroot\x00-phunter2\x00db\x00", "mysql\x00-uroot\x00-pREDACTED\x00db\x00"},
		{"/usr/bin/mysqldump\x00--password\x00hunter2\x00db", "/usr/bin/mysqldump\x00--password\x00REDACTED\x00db"},
		{"pg_dump\x00--dbname=postgresql://u:pw@h/db\x00", "pg_dump\x00--dbname=postgresql://u:REDACTED@h/db\x00"},
		{"psql\x00host=h password=pw dbname=x\x00", "psql\x00host=h password=REDACTED dbname=x\x00"},
		{"app\x00--db-password=pw\x00", "app\x00--db-password=REDACTED\x00"},
		// -p is a port for PostgreSQL tools: kept.
		{"psql\x00-p5432\x00", "psql\x00-p5432\x00"},
		{"mariadb\x00--passw=pw\x00", "mariadb\x00--passw=REDACTED\x00"},
		{"mysql\x00--pass\x00pw\x00", "mysql\x00--pass\x00REDACTED\x00"},
		{"mysql\x00-e\x00SET PASSWORD = PASSWORD('pw')\x00", "mysql\x00-e\x00SET PASSWORD = PASSWORD('REDACTED')\x00"},
		{"postgres: checkpointer \x00", "postgres: checkpointer \x00"},
	}
	for _, c := range cases {
		if got, _ := Cmdline([]byte(c.in)); string(got) != c.want {
			t.Errorf("Cmdline(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
