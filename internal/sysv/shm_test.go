package sysv

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

func u64(v uint64) *uint64 { return &v }

// testdata/proc-6.18/sysvipc/shm: recorded on Linux 6.18.44 with PostgreSQL 15.20
// running: its 56-byte interlock segment.
func TestParseShmRecorded(t *testing.T) {
	segs, err := ReadSegments(linux.FS{Proc: "testdata/proc-6.18"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{{
		Key: 745552, ID: 4, Mode: 0o600, SizeBytes: 56, CreatorPID: 2233, LastPID: 16435,
		Attached: 5, UID: 101, GID: 104, CreatorUID: 101, CreatorGID: 104,
		AttachTime: 1795383809, DetachTime: 1795383809, ChangeTime: 1795382908,
		RSSBytes: u64(4096), SwapBytes: u64(0),
	}}
	if !reflect.DeepEqual(segs, want) {
		t.Errorf("got\n%+v\nwant\n%+v", segs, want)
	}
	if got := segs[0].KeyHex(); got != "000b6050" {
		t.Errorf("KeyHex = %q, want 000b6050 (the name PostgreSQL's mapping has)", got)
	}
}

// testdata/shm-old-no-rss.txt is hand-written in the format of kernels
// without the rss and swap columns, with a negative key (Oracle's keys are
// often above 2^31) and a segment marked for removal (perms 1660).
func TestParseShmOldKernel(t *testing.T) {
	segs := parseShmFixture(t, "shm-old-no-rss.txt")
	if len(segs) != 3 {
		t.Fatalf("got %d segments, want 3", len(segs))
	}
	ora := segs[1]
	if ora.Key != -1946009360 || ora.KeyHex() != "8c0240f0" || ora.SizeBytes != 4<<30 || ora.Attached != 33 {
		t.Errorf("oracle-like segment parsed as %+v", ora)
	}
	if ora.RSSBytes != nil || ora.SwapBytes != nil {
		t.Errorf("rss/swap should be unknown without the columns, got %v %v", ora.RSSBytes, ora.SwapBytes)
	}
	if ora.Destroyed() || !segs[2].Destroyed() || segs[2].Mode&0o777 != 0o660 {
		t.Errorf("SHM_DEST: got %v and %v (mode %o)", ora.Destroyed(), segs[2].Destroyed(), segs[2].Mode)
	}
}

func TestParseShmMalformed(t *testing.T) {
	header := "key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime rss swap\n"
	for name, in := range map[string]string{
		"empty":          "",
		"no header":      "1 2 600 56 1 1 1 0 0 0 0 0 0 0 4096 0\n",
		"missing column": "key shmid perms size\n1 2 600 56\n",
		"short row":      header + "1 2 600 56 1 1 1 0 0 0 0 0 0 0 4096\n",
		"bad perms":      header + "1 2 689 56 1 1 1 0 0 0 0 0 0 0 4096 0\n",
		"negative size":  header + "1 2 600 -56 1 1 1 0 0 0 0 0 0 0 4096 0\n",
		"key too big":    header + "4294967296 2 600 56 1 1 1 0 0 0 0 0 0 0 4096 0\n",
		"duplicate cols": "key key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime rss swap\n1 2 600 56 1 1 1 0 0 0 0 0 0 0 4096 0\n",
	} {
		if _, err := parseShm(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error for %q", name, in)
		}
	}
}

func TestParseShmHeaderOnly(t *testing.T) {
	segs, err := parseShm(strings.NewReader("key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime\n\n"))
	if err != nil || len(segs) != 0 {
		t.Errorf("got %v, %v; want no segments and no error", segs, err)
	}
}

func FuzzParseShm(f *testing.F) {
	for _, p := range []string{"testdata/proc-6.18/sysvipc/shm", "testdata/shm-old-no-rss.txt"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Fuzz(func(t *testing.T, in string) {
		segs, err := parseShm(strings.NewReader(in))
		if err == nil {
			for _, s := range segs {
				_ = s.KeyHex()
			}
		}
	})
}
