// Package xray shows what a PostgreSQL backend's private memory holds: it
// has the backend write its memory contexts to the server log
// (pg_log_backend_memory_contexts, PostgreSQL 14+, over dbmem's verified
// connection), finds that dump in the log (stderr, csvlog or jsonlog, read
// as the server's account), parses it with internal/dblog (the parser the
// post-mortem uses for the dump written with an out-of-memory error), and
// groups the contexts by what a DBA acts on: catalog caches, the plan
// cache, the running query, JIT, other contexts, and what lies outside the
// contexts (Pss_Anon less the contexts' used bytes: malloc retained,
// extensions, libraries), so that the groups add up to the backend's
// private cost (Pss_Anon + VmPTE + VmSwap).
//
// Classify and Analyze are pure; Locate, Follow and Run do the I/O.
package xray
