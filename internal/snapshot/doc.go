// Package snapshot takes one consistent picture of a host's memory: the
// kernel's host-wide numbers and every database instance with its processes.
// It is the typed input of every report, check and plan; it does no
// formatting and no judging.
package snapshot
