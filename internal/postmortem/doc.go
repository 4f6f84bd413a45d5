// Package postmortem explains OOM kills after the fact: which process the
// kernel killed and why, what it held, who else was big, whether the
// database then restarted (and how long that took, and which query died),
// and what would have prevented it.
//
// It is split in two. Gather does the I/O: it reads the kernel log
// (--kernel-log files, else journald's kernel messages, dmesg, and
// /var/log/kern.log* and /var/log/messages*, rotations and .gz included)
// and the server logs of each PostgreSQL and MySQL/MariaDB instance (found
// from their settings, or given), reading only the tail of big files, and
// says which sources it read and which were missing. Analyze is pure: it
// takes those texts (live, or out of a bundle written by dbmem capture),
// the snapshot of the host and the findings of advise.Check, parses the
// logs with oomlog and dblog, merges the copies of one report found in
// several sources, pairs kills with crash restarts (by PID, or by time with
// a tolerance, said to be a guess), and returns a Report that Text and
// JSON render.
package postmortem
