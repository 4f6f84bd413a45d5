// Package logredact removes secrets from database logs before they leave
// the host (capture's bundle): PostgreSQL's stderr, csvlog and jsonlog
// (PostgresLog) and MySQL/MariaDB error logs (MySQLLog). Passwords and
// bind parameters always go; query texts too, unless asked to keep them.
// It tells log formats apart with internal/dblog and removes passwords
// with redact.Secrets; it lives apart from redact so that the kernel
// readers (linux, which redacts process titles) import no log parser.
package logredact
