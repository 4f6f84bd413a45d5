// Package cli is dbmem's command line: one cobra command per file, each a
// thin shell that parses flags, calls a package to do the work and maps the
// outcome to an exit code. Data goes to stdout, diagnostics to stderr.
//
// Exit codes: 0 success, 1 error, 2 usage error, 3 findings at or above the
// requested severity (check --exit-code).
package cli
