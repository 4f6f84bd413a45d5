package linux

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const acctUID, acctGID, sharedGID = 4242, 4242, 4343

// acctTree is a host root as a database account leaves it: its own
// directory with its files, links it made, and root's files around it.
func acctTree(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root (chown)")
	}
	root := t.TempDir()
	os.Chmod(root, 0o755)
	mk := func(p, body string, mode os.FileMode, uid, gid int) {
		p = filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chown(p, uid, gid)
	}
	link := func(p, target string, uid int) {
		p = filepath.Join(root, p)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		os.Lchown(p, uid, uid)
	}
	mk("etc/secret", "root only", 0o600, 0, 0)
	mk("etc/world.conf", "a = 1", 0o644, 0, 0)
	mk("etc/shared.conf", "b = 2", 0o640, 0, sharedGID)
	mk("db/own.conf", "c = 3", 0o600, acctUID, acctGID)
	os.Chown(filepath.Join(root, "db"), acctUID, acctGID)
	os.Chmod(filepath.Join(root, "db"), 0o700)
	mk("private/world.conf", "d = 4", 0o644, 0, 0)
	os.Chmod(filepath.Join(root, "private"), 0o700)
	link("db/secret-link", "/etc/secret", acctUID)
	link("db/world-link", "/etc/world.conf", acctUID)
	link("etc/rootlink", "world.conf", 0)
	link("etc/abs", "/etc/world.conf", 0)
	link("etc/escape", "../../../../../../etc/world.conf", 0)
	if err := syscall.Mkfifo(filepath.Join(root, "db", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chown(filepath.Join(root, "db", "fifo"), acctUID, acctGID)
	return root
}

// TestOpenAs: a file a database names is read only as its account could,
// through no link it made, and never out of the root.
func TestOpenAs(t *testing.T) {
	root := acctTree(t)
	a := &Account{UID: acctUID, GIDs: []uint32{acctGID, sharedGID}}
	cases := []struct {
		name, want string // want: the content, or "!" and a part of the error
	}{
		{"/db/own.conf", "c = 3"},
		{"/etc/world.conf", "a = 1"},
		{"/etc/shared.conf", "b = 2"},
		{"/etc/rootlink", "a = 1"},
		{"/etc/abs", "a = 1"},
		{"/etc/escape", "a = 1"}, // ".." stops at the root
		{"/db/../etc/world.conf", "a = 1"},
		{"/etc/secret", "!owned by uid 0, mode 0600: not readable by the database account (uid 4242)"},
		{"/db/secret-link", "!secret-link is a symbolic link owned by uid 4242"},
		{"/db/world-link", "!world-link is a symbolic link owned by uid 4242"},
		{"/private/world.conf", "!directory private is not searchable"},
		{"/db/fifo", "!not a regular file"},
		{"/db/missing", "!no such file"},
	}
	for _, c := range cases {
		f, err := OpenAs(root, c.name, a, false)
		got := ""
		if err != nil {
			got = "!" + err.Error()
		} else {
			b, _ := io.ReadAll(f)
			f.Close()
			got = string(b)
		}
		if !strings.HasPrefix(c.want, "!") && got != c.want || strings.HasPrefix(c.want, "!") && !strings.Contains(got, c.want[1:]) {
			t.Errorf("OpenAs(%s) = %q, want %q", c.name, got, c.want)
		}
	}
	if _, err := OpenAs(root, "/db/missing", a, false); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file is not ErrNotExist: %v", err)
	}
	other := &Account{UID: 5555, GIDs: []uint32{5555}}
	if _, err := OpenAs(root, "/db/own.conf", other, false); err == nil {
		t.Error("another account read the database's private file")
	}
}

// TestFSAccount: with an account, ReadFile, ReadDir and Exists of host
// files go through OpenAs; /proc does not.
func TestFSAccount(t *testing.T) {
	root := acctTree(t)
	fs := FS{Proc: "/proc", Sys: "/sys", Root: root}.As(&Account{UID: acctUID, GIDs: []uint32{acctGID}})
	if _, err := fs.ReadFile(fs.HostPath("/etc/secret")); err == nil || !strings.Contains(err.Error(), "not readable by the database account") {
		t.Errorf("ReadFile of a root-only file: %v", err)
	}
	if fs.Exists(fs.HostPath("/db/secret-link")) || !fs.Exists(fs.HostPath("/db/own.conf")) {
		t.Error("Exists does not follow the account's rights")
	}
	if names, err := fs.ReadDir(fs.HostPath("/db")); err != nil || len(names) < 3 {
		t.Errorf("ReadDir of the account's directory: %v %v", names, err)
	}
	if _, err := fs.ReadDir(fs.HostPath("/private")); err == nil {
		t.Error("ReadDir of a directory the account cannot search")
	}
	if _, err := fs.ReadFile(fs.ProcPath("self", "status")); err != nil {
		t.Errorf("/proc is read as before: %v", err)
	}
}

func TestParseAccount(t *testing.T) {
	a, err := parseAccount([]byte("Name:\tpostgres\nUid:\t101\t101\t101\t101\nGid:\t104\t104\t104\t105\nGroups:\t104 111 \n"))
	if err != nil || a.UID != 101 || len(a.GIDs) != 3 || a.GIDs[0] != 105 || a.GIDs[2] != 111 {
		t.Errorf("account %+v, %v", a, err)
	}
	if _, err := parseAccount([]byte("Name:\tx\n")); err == nil {
		t.Error("no Uid line: want an error")
	}
}
