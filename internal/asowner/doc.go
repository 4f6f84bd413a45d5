// Package asowner runs one request in a helper process of dbmem's own
// binary under another account, the way `sudo -u postgres psql` reaches a
// server that trusts local accounts (peer authentication), without a shell
// or sudo: the parent re-executes /proc/self/exe with a hidden subcommand
// and the account's uid and gid (no supplementary groups), a minimal
// environment and / as working directory, writes one versioned JSON
// request on its stdin and reads one bounded, strictly parsed JSON answer
// from its stdout. The helper is given no password.
//
// Where systemd serves a helper socket for the account (DefaultSocketDir,
// the package's dbmem-pg-helper.socket), the request goes through it
// instead, to the same helper started by systemd as the account: a
// service then needs no capability to change its identity.
package asowner
