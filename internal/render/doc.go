// Package render turns settings ([]advise.Setting) into the text an
// administrator installs: an /etc/sysctl.d file, systemd drop-ins, a
// postgresql.conf snippet or ALTER SYSTEM statements, a tuned profile, the
// kernel command line, a Kubernetes pod spec. Every value carries a comment
// with its formula and why.
//
// Rendering is pure: no I/O. Files returns the files `dbmem apply` writes,
// with their paths; apply decides whether and how to write them.
package render
