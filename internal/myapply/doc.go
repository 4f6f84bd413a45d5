// Package myapply carries out MySQL/MariaDB settings on a running server:
// SET GLOBAL for the variables that are dynamic, read back with SHOW GLOBAL
// VARIABLES, journaled (hostchange) so that a run can be rolled back; the
// others are said to need a restart (the [mysqld] drop-in that apply
// writes carries them). A value the server refuses or does not take undoes
// the run.
package myapply
