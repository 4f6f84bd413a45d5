// Package cputime reads the CPU time (user + system, from getrusage) this
// process or the calling OS thread has used: what watch ticks and the
// benchmarks charge to dbmem, less disturbed than wall time on a busy host.
package cputime
