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
		pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool {
			return !strings.HasSuffix(fi.Name(), "_test.go")
		}, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Errorf("%s: %v", dir, err)
			continue
		}
		for name, p := range pkgs {
			documented := false
			for _, f := range p.Files {
				documented = documented || f.Doc != nil && strings.TrimSpace(f.Doc.Text()) != ""
			}
			if !documented {
				t.Errorf("package %s (%s) has no package comment: add a doc.go", name, dir)
			}
		}
	}
}
