package treetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteMakesDirectories(t *testing.T) {
	root := t.TempDir()
	Write(t, root, map[string]string{"proc/9/cgroup": "0::/a\n", "etc/x.conf": ""})
	b, err := os.ReadFile(filepath.Join(root, "proc", "9", "cgroup"))
	if err != nil || string(b) != "0::/a\n" {
		t.Errorf("proc/9/cgroup = %q, %v", b, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "etc", "x.conf")); err != nil || fi.Size() != 0 {
		t.Errorf("etc/x.conf: %v, %v", fi, err)
	}
}
