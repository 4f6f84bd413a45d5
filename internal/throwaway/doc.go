// Package throwaway holds what the throwaway database servers of the lab and
// the tests (internal/pgcluster, internal/mysql/mysqltest) need from the
// host: a free TCP port, the credentials of the OS user a server runs as,
// and a private directory that user owns.
package throwaway
