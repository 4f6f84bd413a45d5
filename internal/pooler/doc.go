// Package pooler finds the connection poolers that run on a host
// (PgBouncer, pgcat, Odyssey), reads what decides how many server
// connections each may open to a PostgreSQL instance (their
// configuration files, and PgBouncer's SHOW POOLS, SHOW DATABASES and
// SHOW CONFIG over its admin console), and computes that number with its
// formula and evidence (ServerConnections). PostgreSQL pays for server
// connections, not for clients: a pool of 20 in front of 2,000 clients
// costs 20 backends.
//
// Poolers are found in /proc as internal/postgres finds servers, from a
// linux.FS root (a live host, a recorded tree, a capture bundle). Their
// configuration files are untrusted input: read with the pooler's own
// rights (linux.OpenAs), bounded by internal/confbudget (Budget: files,
// bytes, include depth, time, include cycles), a malformed line said and
// never guessed, and
// every string printed inert. Authentication files are never opened and
// passwords in connection strings are never kept.
//
// The admin console is reached over the pooler's unix socket, proven
// (the socket is the pooler account's and SO_PEERCRED names the pooler
// process) before a byte is sent: as the special user "pgbouncer" from
// the pooler's own OS account (dbmem's helper when dbmem runs as root),
// else as dbmem's OS user without a password. No password is ever sent
// to a pooler's console.
//
// Advise is the pure advice beside it: a pooler and a pool size when
// max_connections backends would take a large share of the memory
// budget while few sessions are active, and the findings when a pooler
// exists (pools larger than the server allows, pools without a bound,
// clients waiting). PlanEdits places pool sizes in a pgbouncer.ini (and its
// includes) and Verify checks them on the console after RELOAD;
// internal/pooler/iniapply writes them through internal/apply.
package pooler
