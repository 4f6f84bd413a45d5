package linux

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// testdata/limits-6.18-*.txt: /proc/PID/limits of PostgreSQL 15 and MariaDB
// 10.11.19 (Debian 12 packages, systemd services), Linux 6.18.44.
func TestParseLimitsRecorded(t *testing.T) {
	b, err := os.ReadFile("testdata/limits-6.18-postgres.txt")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLimits(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 16 {
		t.Errorf("got %d limits, want the 16 of Linux 6.18", len(l))
	}
	checks := []Limit{
		{LimitMemlock, 8 << 20, 8 << 20, "bytes"},
		{LimitStack, 8 << 20, Unlimited, "bytes"},
		{LimitNoFile, 20000, 20000, "files"},
		{"Max nice priority", 0, 0, ""},
		{"Max realtime timeout", Unlimited, Unlimited, "us"},
		{"Max cpu time", Unlimited, Unlimited, "seconds"},
	}
	for _, want := range checks {
		got, ok := l.Find(want.Name)
		if !ok || got != want {
			t.Errorf("%s: got %+v (found %v), want %+v", want.Name, got, ok, want)
		}
	}
}

func TestParseLimitsMariaDB(t *testing.T) {
	b, err := os.ReadFile("testdata/limits-6.18-mariadb.txt")
	if err != nil {
		t.Fatal(err)
	}
	l, err := ParseLimits(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := l.Memlock()
	if !ok || m.Soft != 8388608 || m.Hard != 8388608 {
		t.Errorf("memlock = %+v, %v; want 8 MiB soft and hard", m, ok)
	}
}

func TestParseLimitsMalformed(t *testing.T) {
	for _, in := range []string{
		"Max locked memory         lots                 8388608              bytes\n",
		"Max locked memory         8388608\n",
		"unlimited unlimited\n",
		"Max locked memory         -1                   8388608              bytes\n",
	} {
		if l, err := ParseLimits(strings.NewReader(in)); err == nil {
			t.Errorf("no error for %q: %+v", in, l)
		}
	}
}

func TestReadLimitsSelf(t *testing.T) {
	l, err := ReadLimits(DefaultFS(), os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.Memlock(); !ok {
		t.Errorf("no memlock limit in our own limits: %+v", l)
	}
}

func FuzzParseLimits(f *testing.F) {
	b, err := os.ReadFile("testdata/limits-6.18-mariadb.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add("Max nice priority 0 0\n")
	f.Fuzz(func(t *testing.T, in string) {
		l, err := ParseLimits(strings.NewReader(in))
		if err == nil {
			l.Memlock()
		}
	})
}

// testdata/status-6.18-postgres.txt: a PostgreSQL 15 postmaster, Linux 6.18.44.
func TestParseCreds(t *testing.T) {
	f, err := os.Open("testdata/status-6.18-postgres.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := ParseCreds(f)
	if err != nil {
		t.Fatal(err)
	}
	want := Creds{UID: 101, EUID: 101, GID: 104, FSGID: 104, Groups: []uint32{103, 104}, HaveCapEff: true, CommandName: "postgres"}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got %+v, want %+v", c, want)
	}
	if !c.InGroup(103) || c.InGroup(0) {
		t.Errorf("InGroup: 103 %v, 0 %v", c.InGroup(103), c.InGroup(0))
	}
	root := Creds{CapEff: 0x000001fffeffffff}
	if !root.CapIPCLock() {
		t.Error("CapEff 1fffeffffff has CAP_IPC_LOCK (bit 14)")
	}
}

func TestParseCredsMalformed(t *testing.T) {
	for _, in := range []string{"Name: x\n", "Uid: 1 2 3\nGid: 1 1 1 1\n", "Uid: 1 1 1 1\nGid: 1 1 1 1\nGroups: a\n", "Uid: 1 1 1 1\nGid: 1 1 1 1\nCapEff: zz\n"} {
		if _, err := ParseCreds(strings.NewReader(in)); err == nil {
			t.Errorf("no error for %q", in)
		}
	}
}

func FuzzParseCreds(f *testing.F) {
	b, err := os.ReadFile("testdata/status-6.18-postgres.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, in string) {
		c, err := ParseCreds(strings.NewReader(in))
		if err == nil {
			c.InGroup(0)
		}
	})
}
