package postgres

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// TestFilesFSInContainer: a postmaster in a container dbmem is not in has
// its files under /proc/PID/root; the same path on the host is another
// file (here a decoy with shared_buffers=1GB), never read.
func TestFilesFSInContainer(t *testing.T) {
	const pod = "0::/kubepods.slice/kubepods-pod5f7c1e0a_2b9d_4c3e_8f41_6a0d9b2c7e11.slice/cri-containerd-9b1f0c6d2e4a8b7c3d5e1f2a4b6c8d0e9f1a3b5c7d9e0f2a4b6c8d0e2f4a6b8c.scope\n"
	for _, c := range []struct {
		name, self string
		inRoot     bool
		want       string // shared_buffers read, "" for none
	}{
		{"through /proc/PID/root", "0::/user.slice\n", true, "2GB"},
		{"not readable from here: unknown", "0::/user.slice\n", false, ""},
		{"dbmem in the same container", pod, false, "1GB"},
	} {
		root := t.TempDir()
		files := map[string]string{
			"proc/48211/cgroup": pod, "proc/self/cgroup": c.self,
			"root/var/lib/postgresql/data/pgdata/postgresql.conf": "shared_buffers = 1GB\n",
		}
		if c.inRoot {
			files["proc/48211/root/var/lib/postgresql/data/pgdata/postgresql.conf"] = "shared_buffers = 2GB\n"
		}
		treetest.Write(t, root, files)
		fs := linux.FS{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Root: filepath.Join(root, "root")}
		in := &Instance{PostmasterPID: 48211, DataDir: "/var/lib/postgresql/data/pgdata"}
		in.readFiles(fs, cmdOptions{})
		if got := in.Settings.String("shared_buffers"); got != c.want {
			t.Errorf("%s: shared_buffers %q, want %q (gaps %v)", c.name, got, c.want, in.Gaps)
		}
		if c.want == "" && (len(in.Settings) != 0 || len(in.Gaps) == 0 || !strings.Contains(in.Gaps[0].Why, "mount namespace")) {
			t.Errorf("%s: settings %v, gaps %v", c.name, in.Settings, in.Gaps)
		}
	}
}
