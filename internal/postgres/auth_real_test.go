package postgres_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/servertrust"
)

const testPassword = "pw-5ecret"

// passwordCluster starts a cluster run by postgres whose roles scramuser,
// md5user and clearuser (password testPassword) must authenticate over
// the socket with scram-sha-256, md5 and password (in clear), and over
// TCP with scram-sha-256; everyone else is trusted.
func passwordCluster(t *testing.T) *pgcluster.Cluster {
	c := pgtest.Start(t, map[string]string{"shared_buffers": "40MB"})
	pgtest.Exec(t, c,
		"SET password_encryption = 'scram-sha-256'",
		fmt.Sprintf("CREATE ROLE scramuser LOGIN PASSWORD '%s'", testPassword),
		fmt.Sprintf("CREATE ROLE clearuser LOGIN PASSWORD '%s'", testPassword),
		"SET password_encryption = 'md5'",
		fmt.Sprintf("CREATE ROLE md5user LOGIN PASSWORD '%s'", testPassword))
	hba := "local all scramuser scram-sha-256\nlocal all md5user md5\nlocal all clearuser password\nlocal all all trust\n" +
		"host all scramuser 127.0.0.1/32 scram-sha-256\nhost all all 127.0.0.1/32 trust\n"
	if err := os.WriteFile(filepath.Join(c.DataDir, "pg_hba.conf"), []byte(hba), 0); err != nil {
		t.Fatal(err)
	}
	pgtest.Exec(t, c, "SELECT pg_reload_conf()")
	return c
}

// noPasswordEnv clears the password sources and points HOME at an empty
// directory.
func noPasswordEnv(t *testing.T) string {
	home := t.TempDir()
	for _, k := range []string{"PGPASSWORD", "PGPASSFILE", "PGUSER", "PGHOST", "PGPORT", "PGSSLMODE", "PGDATABASE", "PGREQUIREAUTH"} {
		t.Setenv(k, "") // restored at cleanup
		os.Unsetenv(k)  // unset, not empty: PGPORT="" breaks the server binaries
	}
	t.Setenv("HOME", home)
	return home
}

// TestConnectorPasswordMethods: a cluster run by postgres (a trusted
// account) and proven by its socket gets the password with SCRAM and md5,
// from PGPASSWORD and from a wildcard ~/.pgpass line; a request for the
// password in clear is refused unless --allow-cleartext-password; trust
// needs none. Every answer is this cluster's (shared_buffers 40MB).
func TestConnectorPasswordMethods(t *testing.T) {
	c := passwordCluster(t)
	home := noPasswordEnv(t)
	ctx := context.Background()
	in := discoverPG(t, c.PID)
	live := func(user string, trust servertrust.Policy) (postgres.Live, error) {
		return postgres.Connector{Options: postgres.ConnOptions{User: user, Trust: trust}}.Live(ctx, in)
	}
	if l, err := live("postgres", servertrust.Policy{}); err != nil || l.Settings.String("shared_buffers") != "40MB" ||
		!strings.Contains(l.As, fmt.Sprintf("server proven: postmaster %d run by postgres", c.PID)) {
		t.Errorf("trust: %q %v", l.As, err)
	}
	if _, err := live("scramuser", servertrust.Policy{}); err == nil || !strings.Contains(err.Error(), "none was found") {
		t.Errorf("scram without a password: %v", err)
	}
	t.Setenv("PGPASSWORD", testPassword)
	for _, u := range []string{"scramuser", "md5user"} {
		if l, err := live(u, servertrust.Policy{}); err != nil || l.Settings.String("shared_buffers") != "40MB" {
			t.Errorf("%s with PGPASSWORD: %v", u, err)
		}
	}
	_, err := live("clearuser", servertrust.Policy{})
	if err == nil || !strings.Contains(err.Error(), "asked for the password in clear without TLS and dbmem did not send it") {
		t.Errorf("password in clear sent without the flag: %v", err)
	}
	if _, err := live("clearuser", servertrust.Policy{AllowCleartext: true}); err != nil {
		t.Errorf("--allow-cleartext-password: %v", err)
	}
	os.Unsetenv("PGPASSWORD")
	writeFile(t, filepath.Join(home, ".pgpass"), "*:*:*:*:"+testPassword+"\n", 0o600)
	if _, err := live("scramuser", servertrust.Policy{}); err != nil {
		t.Errorf("a wildcard ~/.pgpass line for a proven server of postgres: %v", err)
	}
}

// TestConnectorTCPPasswordNeedsTLS: over TCP nothing is proven. A
// wildcard ~/.pgpass line is not used; a line naming the host and port
// is, but only in TLS: the test cluster has none, so dbmem asks again
// without the password and says why; --allow-cleartext-password lets it
// go without TLS.
func TestConnectorTCPPasswordNeedsTLS(t *testing.T) {
	c := passwordCluster(t)
	home := noPasswordEnv(t)
	ctx := context.Background()
	in := discoverPG(t, c.PID)
	live := func(trust servertrust.Policy) error {
		o := postgres.ConnOptions{User: "scramuser", Host: "127.0.0.1", Trust: trust}
		_, err := postgres.Connector{Options: o}.Live(ctx, in)
		return err
	}
	pgpass := filepath.Join(home, ".pgpass")
	writeFile(t, pgpass, "*:*:*:*:"+testPassword+"\n", 0o600)
	if err := live(servertrust.Policy{}); err == nil || !strings.Contains(err.Error(), "wildcard entry of "+pgpass+" was not used") {
		t.Errorf("wildcard line over TCP: %v", err)
	}
	writeFile(t, pgpass, fmt.Sprintf("127.0.0.1:%d:*:scramuser:%s\n", c.Port, testPassword), 0o600)
	if err := live(servertrust.Policy{}); err == nil || !strings.Contains(err.Error(), "the server refused TLS") {
		t.Errorf("bound line over TCP without TLS: %v", err)
	}
	if err := live(servertrust.Policy{AllowCleartext: true}); err != nil {
		t.Errorf("bound line over TCP with --allow-cleartext-password: %v", err)
	}
	writeFile(t, pgpass, fmt.Sprintf("127.0.0.1:%d:*:scramuser:%s\n", c.Port, testPassword), 0o644)
	if err := live(servertrust.Policy{AllowCleartext: true}); err == nil || !strings.Contains(err.Error(), "group or others may read it") {
		t.Errorf("a password file others may read: %v", err)
	}
}

func writeFile(t *testing.T, path, s string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// discoverPG finds the instance of postmaster pm without connecting.
func discoverPG(t *testing.T, pm int) *postgres.Instance {
	t.Helper()
	return discover(t, pm, postgres.Options{})
}
