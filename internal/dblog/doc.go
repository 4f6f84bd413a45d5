// Package dblog reads database server logs for what follows an OOM kill:
// PostgreSQL crash-restart sequences ("server process (PID n) was terminated
// by signal 9: Killed" ... "database system is ready to accept connections"),
// PostgreSQL "out of memory" errors with the memory context dump printed
// before them, and MySQL/MariaDB restarts after a crash.
//
// ParsePostgres reads stderr logs with any log_line_prefix that starts with
// %m, %t or %n (stock and Debian defaults "%m [%p] " and "%m [%p] %q%u@%d "),
// logs with no prefix, csvlog and jsonlog. Messages must be in English
// (lc_messages = 'C' or 'en_*').
//
// Match pairs kernel OOM kills (package oomlog) with crash restarts: by PID
// when the killed PID is the one the database reports (certain), otherwise
// by time within a tolerance (a guess). Both sides are compared as absolute
// instants; see Match for how clocks in different zones are handled.
//
// The parsers are pure and never panic (FuzzParsePostgres, FuzzParseMySQL).
package dblog
