// Package servertrust decides which local database servers are proven to
// be what they claim, and which of them may receive a password.
//
// A process named postgres or mysqld is only a name: any local user can
// start one. A server is proven when the process, its data directory and
// its socket are owned by one account and, before a single byte is sent,
// the socket's listener (SO_PEERCRED) is the process found in /proc. A
// proven server may still be run by an account nobody vouched for; a
// password goes only to servers run by a trusted account (the database
// accounts postgres and mysql, the account dbmem runs as, and those named
// with --server-account), and never in clear unless over TLS or the user
// allows it.
package servertrust
