package treetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates each file (a slash-separated path relative to root, such
// as "proc/9/cgroup") with its text, making directories as needed. It
// fails the test on any error.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
