// Command archetype-tree writes the tree of a host archetype (procfs,
// sysfs and root files, generated from its spec.yaml and posted/ files)
// into an empty directory, for running dbmem on it by hand:
//
//	go run ./internal/archetype/cmd/archetype-tree testdata/archetypes/vm1g-mysql8-bp768m /tmp/vm1g
//	dbmem --proc /tmp/vm1g/proc --sys /tmp/vm1g/sys --root /tmp/vm1g/root check
package main

import (
	"fmt"
	"os"

	"github.com/dbmem/dbmem/internal/archetype"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: archetype-tree ARCHETYPE_DIR OUT_DIR (OUT_DIR new or empty)")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "archetype-tree:", err)
		os.Exit(1)
	}
}

func run(src, dst string) error {
	if ents, err := os.ReadDir(dst); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty: give a new or empty directory", dst)
	}
	return archetype.Build(src, dst)
}
