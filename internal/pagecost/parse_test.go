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

func TestParseRollupFixture(t *testing.T) {
	r, err := ParseRollup(strings.NewReader(readFixture(t, "smaps_rollup-postgres15-checkpointer-linux6.18.txt")))
	if err != nil {
		t.Fatal(err)
	}
	want := Rollup{
		RssBytes: 31264 << 10, PssBytes: 23592 << 10, PssDirtyBytes: 23114 << 10,
		PssAnonBytes: 935 << 10, PssFileBytes: 477 << 10, PssShmemBytes: 22179 << 10,
		SharedCleanBytes: 5240 << 10, SharedDirtyBytes: 3928 << 10, PrivateDirtyBytes: 22096 << 10,
		ReferencedBytes: 31244 << 10, AnonymousBytes: 2680 << 10, HasPssAnon: true,
	}
	if r != want {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
}

func TestParseRollupVariants(t *testing.T) {
	old := "00400000-7ffd ---p 00000000 00:00 0 [rollup]\nRss: 100 kB\nPss: 50 kB\nSwap: 8 kB\nSwapPss: 4 kB\nShared_Hugetlb: 2048 kB\nPrivate_Hugetlb: 4096 kB\n"
	r, err := ParseRollup(strings.NewReader(old))
	if err != nil || r.HasPssAnon || r.PssBytes != 50<<10 || r.SwapPssBytes != 4<<10 || r.PrivateHugetlbBytes != 4<<20 {
		t.Errorf("kernel 4.14 format: %+v, %v", r, err)
	}
	for name, text := range map[string]string{
		"empty (process exited)": "",
		"no Pss":                 "Rss: 4 kB\n",
		"bad number":             "Rss: 4 kB\nPss: x kB\n",
		"bad unit":               "Rss: 4 kB\nPss: 4 MB\n",
		"overflow":               "Rss: 18446744073709551615 kB\nPss: 1 kB\n",
	} {
		if _, err := ParseRollup(strings.NewReader(text)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestParseStatusFixtures(t *testing.T) {
	s, err := ParseStatus(strings.NewReader(readFixture(t, "status-postgres15-checkpointer-linux6.18.txt")))
	want := Status{RssAnonBytes: 2680 << 10, VmPTEBytes: 184 << 10, HasMM: true}
	if err != nil || s != want {
		t.Errorf("checkpointer: %+v, %v; want %+v", s, err, want)
	}
	s, err = ParseStatus(strings.NewReader(readFixture(t, "status-kthread-linux6.18.txt")))
	if err != nil || s != (Status{}) {
		t.Errorf("kernel thread: %+v, %v; want no memory", s, err)
	}
	if _, err := ParseStatus(strings.NewReader("VmSize: 1 kB\nVmPTE: lots\n")); err == nil {
		t.Error("bad VmPTE: no error")
	}
}

func FuzzParseRollup(f *testing.F) {
	f.Add([]byte("Rss: 4 kB\nPss: 2 kB\nPss_Anon: 1 kB\n"))
	f.Add([]byte("x ---p 0 00:00 0 [rollup]\nRss:\nPss: 1 2 3\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseRollup(strings.NewReader(string(b)))
		if err == nil && r.HasPssAnon && !strings.Contains(string(b), "Pss_Anon") {
			t.Errorf("HasPssAnon without a Pss_Anon line")
		}
	})
}

func FuzzParseStatus(f *testing.F) {
	f.Add([]byte("Name:\tpostgres\nVmSize:\t 10 kB\nRssAnon: 4 kB\nVmPTE:\t 8 kB\nVmSwap: 0 kB\nUid:\t0\t0\t0\t0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseStatus(strings.NewReader(string(b)))
		if err == nil && s.HasMM && !strings.Contains(string(b), "VmSize") {
			t.Errorf("HasMM without VmSize")
		}
	})
}

// FuzzParseMapsActions checks the allocation-free maps parser against
// linux.ParseMaps followed by classifyVMA, on inputs whose separators are
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
			if want := (vma{m.Start, m.End, classifyVMA(m)}); got[i] != want {
				t.Fatalf("line %d: %+v, want %+v", i+1, got[i], want)
			}
		}
	})
}
