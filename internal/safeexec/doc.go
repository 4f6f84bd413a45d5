// Package safeexec runs the host programs dbmem needs (journalctl, dmesg,
// systemctl, perf, useradd) the one way root may: looked up by absolute
// path in the system directories only (never $PATH), refused unless only
// root could have put the program there, with a cleared environment
// (nothing of root's: no secrets, no LD_PRELOAD), and with a byte budget
// on what is kept of its output that says when it was hit.
package safeexec
