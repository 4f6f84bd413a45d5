// Package archtest holds the tests of dbmem's architecture: which internal
// packages may import which (the floors of docs/DEVELOPING.md), checked
// with `go list -deps` so that a new import that breaks a floor fails the
// suite. It has no code of its own.
package archtest
