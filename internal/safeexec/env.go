package safeexec

// Dirs are the only directories programs are looked up in: root-owned on
// every distribution, and the PATH children get.
var Dirs = []string{"/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// Path is the PATH every child gets.
const Path = "PATH=/usr/sbin:/usr/bin:/sbin:/bin"

// Env is the whole environment of a child: PATH, the C locale (English
// messages, month names and numbers dbmem parses), and extra (for
// example SYSTEMD_PAGER=). Nothing of dbmem's own environment passes: it
// may hold root's secrets (PGPASSWORD, tokens) and variables that change
// what a program loads or runs (LD_PRELOAD, PAGER, PGSYSCONFDIR).
func Env(extra ...string) []string {
	return append([]string{Path, "LC_ALL=C", "LANG=C"}, extra...)
}
