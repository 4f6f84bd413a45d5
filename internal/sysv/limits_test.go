package sysv

import (
	"os"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

func TestReadLimitsRecorded(t *testing.T) {
	l, err := ReadLimits(linux.FS{Proc: "testdata/proc-6.18"}, 2233)
	if err != nil {
		t.Fatal(err)
	}
	if len(l) != 16 {
		t.Errorf("got %d limits, want the 16 of Linux 6.18", len(l))
	}
	checks := []struct {
		name       string
		soft, hard uint64
		unit       string
	}{
		{LimitMemlock, 8 << 20, 8 << 20, "bytes"},
		{LimitStack, 8 << 20, Unlimited, "bytes"},
		{LimitNoFile, 20000, 20000, "files"},
		{"Max nice priority", 0, 0, ""},
		{"Max realtime timeout", Unlimited, Unlimited, "us"},
		{"Max cpu time", Unlimited, Unlimited, "seconds"},
	}
	for _, c := range checks {
		got, ok := l.Find(c.name)
		want := Limit{Name: c.name, Soft: c.soft, Hard: c.hard, Unit: c.unit}
		if !ok || got != want {
			t.Errorf("%s: got %+v (found %v), want %+v", c.name, got, ok, want)
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
