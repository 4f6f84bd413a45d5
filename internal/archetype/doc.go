// Package archetype builds the host archetypes under testdata/archetypes
// (procfs, sysfs and root trees written from a compact spec plus the files
// people posted publicly, kept verbatim, or a host recorded verbatim under
// posted/tree) and compares dbmem's check and plan of each with the verdict
// a senior DBA/SRE wrote down for it (expect.yaml).
//
// Only the sources are committed. The trees are generated at test time
// into a temporary directory (Build; archetypetest.Dir for other packages'
// tests; cmd/archetype-tree by hand), and tree.sum beside each spec records
// the hash of the tree it generates: TestArchetypeTrees fails when a
// generator or a source change moves a tree, until `go test
// ./internal/archetype -run TestArchetypeTrees -update` records the new
// hash after review. The harness reads every tree through dbmem's real
// readers (snapshot.Take, plan.Run) without any live connection, as
// `dbmem --proc T/proc --sys T/sys --root T/root` would.
package archetype
