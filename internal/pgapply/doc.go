// Package pgapply carries out PostgreSQL's own settings over SQL, as
// `dbmem apply` does the kernel's: per-role settings with ALTER ROLE ...
// SET (role names quoted by PostgreSQL's identifier rules), server settings
// with ALTER SYSTEM (or, when apply wrote them to the conf.d file, only the
// reload and the check), then pg_reload_conf() and a check that the server
// took every value: SHOW (pg_settings, from a new session) and
// pg_db_role_setting. A setting that needs a restart (max_connections) is
// said, never made: dbmem never restarts a database.
//
// Every run is journaled before it changes anything (JournalDir/postgres/
// ID.json: each old value, unset or set); a value the server did not take
// rolls the whole run back; Rollback turns a journal into the run that
// restores the old values, journaled too.
//
// It talks to the server through a Session (internal/postgres's proven
// connection, through the helper as the server's account when dbmem runs
// as root); a test gives it a real server.
package pgapply
