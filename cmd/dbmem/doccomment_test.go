package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryPackageHasAComment: every Go package of the module (tests
// aside) has a package comment, by convention in its doc.go.
func TestEveryPackageHasAComment(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir("../..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != "../.." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go") {
			dirs[filepath.Dir(p)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 30 {
		t.Fatalf("found %d packages: not the module's tree", len(dirs))
	}
	for dir := range dirs {
		if name, ok := documented(t, dir); !ok {
			t.Errorf("package %s (%s) has no package comment: add a doc.go", name, dir)
		}
	}
}

// documented reports whether one non-test file of dir carries a package
// comment, and the package's name.
func documented(t *testing.T, dir string) (string, bool) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	name := dir
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		name = af.Name.Name
		if af.Doc != nil && strings.TrimSpace(af.Doc.Text()) != "" {
			return name, true
		}
	}
	return name, false
}
