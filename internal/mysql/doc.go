// Package mysql finds running MySQL and MariaDB servers (mysqld, mariadbd)
// and explains their memory: the settings (read over the server's unix
// socket, or from the my.cnf files the server read), where the InnoDB buffer
// pool is mapped and in which page size, what the threads cost, and the
// worst case the settings allow.
//
// Reading (Discover, Connector) is separate from the pure calculations
// (ComputeWorstCase, WorstCaseIn, PlanHugePages), which take an Instance and
// return enginemem's engine-neutral types (WorstCase, HugeNeed) with their
// formulas: internal/advise judges them with the same checks as
// PostgreSQL's (its fromMySQL view).
package mysql
