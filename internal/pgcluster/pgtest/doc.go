// Package pgtest starts throwaway PostgreSQL servers for tests, on free ports
// in private directories, and stops and removes them in t.Cleanup.
//
// Tests never use the host's standard PostgreSQL. The binaries come from
// $DBMEM_PG_BIN or the newest /usr/lib/postgresql/*/bin; if none is installed
// the test fails with the install command (CI installs them).
//
// ForEachVersion runs a test once per PostgreSQL version: the installed one
// and the newer majors scripts/fetch-postgres unpacks into $DBMEM_PG_CACHE
// (default /var/cache/dbmem/postgres); a version not fetched is skipped.
package pgtest
