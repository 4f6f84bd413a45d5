package throwaway

import (
	"net"
	"os"
	"strconv"
	"syscall"
	"testing"
)

func TestFreePortCanBeListenedOn(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("port %d is not free: %v", port, err)
	}
	l.Close()
}

func TestCredentialOfRootAndOfAMissingUser(t *testing.T) {
	c, err := Credential("root")
	if err != nil || c.Uid != 0 || c.Gid != 0 {
		t.Errorf("Credential(root) = %+v, %v", c, err)
	}
	if _, err := Credential("dbmem-no-such-user"); err == nil {
		t.Error("Credential of a missing user: no error")
	}
}

func TestDirIsOwnedAndReadable(t *testing.T) {
	owner := &syscall.Credential{Uid: uint32(os.Geteuid()), Gid: uint32(os.Getegid())}
	if os.Geteuid() == 0 {
		owner = &syscall.Credential{Uid: 65534, Gid: 65534} // nobody: only root may give a directory away
	}
	dir, err := Dir(t.TempDir(), "srv-", owner)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if fi.Mode().Perm() != 0o755 || st.Uid != owner.Uid || st.Gid != owner.Gid {
		t.Errorf("%s: mode %v owner %d:%d, want 0755 %d:%d", dir, fi.Mode().Perm(), st.Uid, st.Gid, owner.Uid, owner.Gid)
	}
}
