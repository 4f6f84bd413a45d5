package servertrust

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

func TestPolicyTrusted(t *testing.T) {
	self := uint32(os.Geteuid())
	p := Policy{Accounts: []string{"alice", "4242"}}
	for _, c := range []struct {
		a    Account
		want bool
	}{
		{Account{UID: 101, Name: "postgres"}, true},
		{Account{UID: 65534, Name: "nobody"}, false},
		{Account{UID: 1000, Name: "alice"}, true},
		{Account{UID: 4242}, true},
		{Account{UID: 4243}, false},
		{Account{UID: self, Name: "me"}, true},
		{Account{UID: 999, Name: ""}, false},
	} {
		if got := p.Trusted(c.a, "postgres"); got != c.want {
			t.Errorf("%+v: trusted %v, want %v", c.a, got, c.want)
		}
	}
	if l := p.TrustedList("postgres"); !strings.HasPrefix(l, "postgres, alice, 4242, ") {
		t.Errorf("list %q", l)
	}
}

// TestDialUnixChecksListener: a socket this process listens on passes
// when this process is expected; expecting another PID or account closes
// the connection before anything is written, with a reason naming both.
func TestDialUnixChecksListener(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan int, 4)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b := make([]byte, 16)
			n, _ := c.Read(b)
			got <- n
			c.Close()
		}
	}()
	ctx := context.Background()
	me := Peer{PID: os.Getpid(), UID: uint32(os.Geteuid())}
	c, err := DialUnix(ctx, path, me)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("hi"))
	c.Close()
	if n := <-got; n != 2 {
		t.Errorf("the proven listener got %d bytes, want 2", n)
	}
	for _, want := range []Peer{{PID: 1, UID: me.UID}, {PID: me.PID, UID: me.UID + 1}} {
		_, err := DialUnix(ctx, path, want)
		var pe *PeerError
		if !errors.As(err, &pe) || pe.GotPID != me.PID || !strings.Contains(err.Error(), "nothing sent") {
			t.Errorf("want %+v: %v", want, err)
		}
		if n := <-got; n != 0 {
			t.Errorf("a refused listener got %d bytes", n)
		}
	}
}

// TestProofOwnership: files owned by the server's account pass; one
// owned by another account, of the wrong kind or missing fails; one that
// cannot be looked at is unchecked.
func TestProofOwnership(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("chown needs root")
	}
	dir := t.TempDir()
	mine := filepath.Join(dir, "mine")
	theirs := filepath.Join(dir, "theirs")
	os.WriteFile(mine, nil, 0o600)
	os.WriteFile(theirs, nil, 0o600)
	os.Chown(theirs, 65534, 65534)
	p := Begin(linux.DefaultFS(), os.Getpid())
	if !p.CheckOwned("file", mine, 0) || p.Failed() != "" {
		t.Errorf("own file: %q", p.Failed())
	}
	p.CheckOwned("file", theirs, 0)
	p.CheckOwned("directory", mine, fs.ModeDir)
	p.CheckOwned("socket", filepath.Join(dir, "missing"), fs.ModeSocket)
	for _, want := range []string{"owned by nobody, the server runs as root", "is a regular file, not a directory", "missing: "} {
		if !strings.Contains(p.Failed(), want) {
			t.Errorf("failures %q lack %q", p.Failed(), want)
		}
	}
	if p.Ready() {
		t.Error("ready with failures")
	}
	p.CheckListening(linux.DefaultFS(), filepath.Join(dir, "no.sock"))
	if !strings.Contains(p.Failed(), "pid "+strconv.Itoa(os.Getpid())+" does not listen on") {
		t.Errorf("listening check: %q", p.Failed())
	}
	if q := Begin(linux.FS{Proc: "/nonexistent"}, 1); q.Failed() == "" || q.Ready() {
		t.Error("a captured /proc proves nothing")
	}
}
