package postgres

import "strings"

// transientModes are the first arguments that make postgres run once and
// exit instead of serving: initdb's bootstrap, single-user mode, the
// configuration dump, and the checks (PostgreSQL's main.c tests argv[1]).
var transientModes = map[string]bool{
	"--boot": true, "--single": true, "--describe-config": true, "--check": true,
	"--help": true, "-?": true, "--version": true, "-V": true,
}

// shortWithValue are the postgres options that take the next argument as
// their value.
const shortWithValue = "BcCdDfhkNoprStW"

// isTransient reports whether a postgres command line (argv, argv[0]
// first) is a run that prints or checks and exits, not a server: the
// modes above, or -C name anywhere (PostmasterMain prints the setting and
// exits; dbmem's own plans run it).
func isTransient(args []string) bool {
	if len(args) > 1 && transientModes[args[1]] {
		return true
	}
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "-C" || strings.HasPrefix(a, "-C") && !strings.HasPrefix(a, "--") {
			return true
		}
		if len(a) == 2 && a[0] == '-' && strings.IndexByte(shortWithValue, a[1]) >= 0 {
			i++ // skip the value: "-c cluster_name=-C" is a setting
		}
	}
	return false
}
