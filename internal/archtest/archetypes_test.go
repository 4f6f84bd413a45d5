package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestArchetypeTreesGenerated: the archetypes' trees are generated at test
// time (archetypetest.Dir), never committed nor read from
// testdata/archetypes directly, where they no longer are.
func TestArchetypeTreesGenerated(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, g := range []string{"proc", "sys", "root"} {
		if m, _ := filepath.Glob(filepath.Join(root, "testdata", "archetypes", "*", g)); len(m) > 0 {
			t.Errorf("generated trees committed: %v (only spec.yaml, expect.yaml, posted/ and tree.sum are sources)", m)
		}
	}
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || exempt(p) {
			return err
		}
		b, err := os.ReadFile(p)
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if strings.Contains(code, `"archetypes"`) && !strings.Contains(code, `"budget"`) || strings.Contains(code, `"testdata/archetypes/`) || strings.Contains(code, `testdata/archetypes/"`) {
				t.Errorf("%s:%d reads testdata/archetypes directly: use archetypetest.Dir(t, name)", p, i+1)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// exempt are the packages that name testdata/archetypes by right: the
// generator and this test.
func exempt(p string) bool {
	for _, dir := range []string{"archetype", "archtest"} {
		if strings.Contains(p, filepath.Join("internal", dir)+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
