// Package archetypetest generates a host archetype of testdata/archetypes
// into a test's temporary directory, so tests read the tree its spec
// generates rather than a committed copy.
package archetypetest

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/dbmem/dbmem/internal/archetype"
)

// Root is the directory of the archetypes' sources (testdata/archetypes).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "testdata", "archetypes")
}

// Dir generates the archetype name into a temporary directory and returns
// it (proc/, sys/ and root/ as capture.TreeFS reads them). The test fails
// when the tree differs from the hash recorded beside the spec.
func Dir(t testing.TB, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := archetype.Build(filepath.Join(Root(), name), dst); err != nil {
		t.Fatalf("archetype %s: %v", name, err)
	}
	return dst
}
