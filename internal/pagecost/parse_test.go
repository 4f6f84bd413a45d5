package pagecost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

func readFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStatusAndRollupFixtures checks that the linux parsers, which
// pagecost uses, give the fields the private cost needs from files
// recorded on kernel 6.18.
func TestStatusAndRollupFixtures(t *testing.T) {
	r, err := linux.ParseSmapsRollup(strings.NewReader(readFixture(t, "smaps_rollup-postgres15-checkpointer-linux6.18.txt")))
	if err != nil || r.PssAnonBytes == nil || *r.PssAnonBytes != 935<<10 || r.PssBytes != 23592<<10 ||
		*r.PrivateDirtyBytes != 22096<<10 || *r.PssShmemBytes != 22179<<10 {
		t.Errorf("smaps_rollup: %+v, %v; want Pss_Anon 935 kB, Pss 23592 kB", r, err)
	}
	s, err := linux.ParseStatus(strings.NewReader(readFixture(t, "status-postgres15-checkpointer-linux6.18.txt")))
	if err != nil || *s.RssAnonBytes != 2680<<10 || *s.VmPTEBytes != 184<<10 || *s.VmSwapBytes != 0 || !s.HasMM {
		t.Errorf("checkpointer status: %+v, %v", s, err)
	}
	s, err = linux.ParseStatus(strings.NewReader(readFixture(t, "status-kthread-linux6.18.txt")))
	if err != nil || s.HasMM || s.RssAnonBytes != nil || s.Name != "kthreadd" {
		t.Errorf("kernel thread: %+v, %v; want no memory", s, err)
	}
	if _, err := linux.ParseSmapsRollup(strings.NewReader("")); err == nil {
		t.Error("empty smaps_rollup (an exited process): no error")
	}
}

// FuzzParseMapsActions checks the allocation-free maps parser against
// linux.ParseMaps followed by vmaOf, on inputs whose separators are
// spaces, tabs and newlines (what the kernel prints).
func FuzzParseMapsActions(f *testing.F) {
	f.Add([]byte("55f1992b8000-55f1992b9000 r--p 00000000 fe:01 1234 /usr/lib/postgresql/15/bin/postgres\n" +
		"7f2242895000-7f2282895000 rw-s 00000000 00:01 5 /dev/zero (deleted)\n" +
		"7f2282895000-7f2282896000 rw-p 00000000 00:00 0 \n" +
		"7f2282896000-7f2282a96000 rw-p 00000000 00:0f 77 /anon_hugepage (deleted)\n" +
		"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, c := range b {
			if c == '\r' || c == '\v' || c == '\f' || c >= 0x80 {
				return
			}
		}
		got, err := parseMapsActions(b, nil)
		maps, refErr := linux.ParseMaps(strings.NewReader(string(b)))
		if refErr != nil {
			return
		}
		if err != nil || len(got) != len(maps) {
			t.Fatalf("parseMapsActions: %d vmas, %v; linux.ParseMaps: %d mappings", len(got), err, len(maps))
		}
		for i, m := range maps {
			if want := vmaOf(m); got[i] != want {
				t.Fatalf("line %d: %+v, want %+v", i+1, got[i], want)
			}
		}
	})
}
