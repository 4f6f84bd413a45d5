// Package confbudget bounds reading a configuration and the files it
// includes (PostgreSQL's include, include_if_exists and include_dir,
// MySQL's !include and !includedir): those files are written by a
// database's account, or by any user who runs a process named postgres or
// mysqld. One Reader counts files, bytes, include depth, the includes of
// one file or directory (fan-out) and time against a Budget, detects an
// include cycle, and refuses a file over the budget naming it.
package confbudget
