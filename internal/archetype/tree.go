package archetype

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// SumFile, beside an archetype's spec.yaml, holds the hash of the tree it
// generates: the drift check that replaces committing the tree itself.
const SumFile = "tree.sum"

// Sum is the hash of a tree: every path and content, in path order, so a
// changed byte, a file added or one gone changes it.
func (t Tree) Sum() string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(t)) {
		fmt.Fprintf(h, "%s\x00%d\x00%s", p, len(t[p]), t[p])
	}
	return fmt.Sprintf("sha256:%s %d files", hex.EncodeToString(h.Sum(nil)), len(t))
}

// ReadSum reads the hash recorded beside the spec in dir.
func ReadSum(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, SumFile))
	return strings.TrimSpace(string(b)), err
}

// WriteSum records the tree's hash beside the spec in dir.
func WriteSum(dir string, t Tree) error {
	return os.WriteFile(filepath.Join(dir, SumFile), []byte(t.Sum()+"\n"), 0o644)
}

// Write writes the tree under dst (proc/, sys/, root/), which must not
// hold a tree already.
func Write(dst string, t Tree) error {
	for p, c := range t {
		f := filepath.Join(dst, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Build generates the archetype in src (spec.yaml, posted/) into dst and
// checks it against the hash recorded beside the spec.
func Build(src, dst string) error {
	t, err := Generate(src)
	if err != nil {
		return err
	}
	if err := CheckSum(src, t); err != nil {
		return err
	}
	return Write(dst, t)
}

// CheckSum compares the tree with the hash recorded in dir.
func CheckSum(dir string, t Tree) error {
	want, err := ReadSum(dir)
	if err != nil {
		return fmt.Errorf("%s: %w (go test ./internal/archetype -run TestArchetypeTrees -update records it)", dir, err)
	}
	if got := t.Sum(); got != want {
		return fmt.Errorf("%s: the tree generated from spec.yaml and posted/ is %s, %s records %s: "+
			"the generator or a source changed (go test ./internal/archetype -run TestArchetypeTrees -update records it once reviewed)",
			dir, got, SumFile, want)
	}
	return nil
}
