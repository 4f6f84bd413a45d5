// Package report renders snapshots (and, later, findings) for people and
// programs: an aligned terminal report, JSON with a versioned schema. It only
// formats; every number it prints was read or computed elsewhere.
package report
