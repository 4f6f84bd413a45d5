package linux

import (
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Lines of /proc/net/unix on Linux 6.18.44 (PostgreSQL and MariaDB sockets,
// a connected socket and an abstract one).
const netUnix618 = `Num       RefCount Protocol Flags    Type St Inode Path
00000000eb95c547: 00000002 00000000 00010000 0001 01  5010 /var/run/postgresql/.s.PGSQL.5432
00000000e954086c: 00000002 00000000 00010000 0001 01 10688 /run/mysqld/mysqld.sock
0000000012345678: 00000003 00000000 00000000 0001 03 20001
00000000abcdef01: 00000002 00000000 00010000 0001 01 20002 @/tmp/.X11-unix/X0
garbage line
`

func TestParseNetUnix(t *testing.T) {
	got := parseNetUnix(strings.NewReader(netUnix618))
	want := []UnixSocket{
		{5010, true, "/var/run/postgresql/.s.PGSQL.5432"}, {10688, true, "/run/mysqld/mysqld.sock"},
		{20001, false, ""}, {20002, true, "@/tmp/.X11-unix/X0"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestListeningUnixSocketsSelf(t *testing.T) {
	p := filepath.Join(t.TempDir(), "test.sock")
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, err := ListeningUnixSockets(DefaultFS(), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, []string{p}) {
		t.Errorf("listening sockets of this test = %v, want [%s]", got, p)
	}
}

func FuzzParseNetUnix(f *testing.F) {
	f.Add(netUnix618)
	f.Fuzz(func(t *testing.T, s string) {
		for _, u := range parseNetUnix(strings.NewReader(s)) {
			if strings.ContainsAny(u.Path, "\n") {
				t.Errorf("path with a newline: %q", u.Path)
			}
		}
	})
}
