package linux

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// parseKVLineStrings is the strings-based parser that kv.go replaced
// (strings.Cut, strings.Fields, strconv.ParseUint, strings.ToLower); the
// allocation-free one must give the same answers.
func parseKVLineStrings(line string) (string, uint64, bool) {
	key, rest, ok := strings.Cut(line, ":")
	if !ok || key == "" || strings.ContainsAny(key, " \t") {
		return "", 0, false
	}
	f := strings.Fields(rest)
	if len(f) == 0 || len(f) > 2 {
		return "", 0, false
	}
	v, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return "", 0, false
	}
	if len(f) == 2 {
		mult := map[string]uint64{"b": 1, "kb": 1 << 10, "mb": 1 << 20, "gb": 1 << 30}[strings.ToLower(f[1])]
		if mult == 0 || v > (1<<64-1)/mult {
			return "", 0, false
		}
		v *= mult
	}
	return key, v, true
}

// FuzzParseKVLine checks parseKVLine against the strings-based version on
// ASCII lines (strings.Fields also splits on Unicode spaces, which the
// kernel does not print).
func FuzzParseKVLine(f *testing.F) {
	for _, s := range []string{"VmPTE:\t    2192 kB", "Threads: 1", "Hugepagesize: 2048 kB", "Pss: 1 2 3", "x: 18446744073709551615 kB", "HugePages_Total: 7", "a b: 1", ": 1", "K: 1 Kb", "K: +1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for i := 0; i < len(line); i++ {
			if line[i] >= 0x80 || line[i] == '\n' {
				return
			}
		}
		k, v, ok := parseKVLine(line)
		wk, wv, wok := parseKVLineStrings(line)
		if k != wk || v != wv || ok != wok {
			t.Errorf("%q: (%q, %d, %v), strings version (%q, %d, %v)", line, k, v, ok, wk, wv, wok)
		}
		kb, vb, okb := parseKVLine([]byte(line))
		if string(kb) != k || vb != v || okb != ok {
			t.Errorf("%q: []byte version differs", line)
		}
	})
}

// TestParseStatusAllocs: reading status for 1,000 processes must not
// allocate per line (the map-and-scanner parser allocated 82 KB per file).
func TestParseStatusAllocs(t *testing.T) {
	b := []byte(statusBackend)
	allocs := testing.AllocsPerRun(100, func() {
		eachKV(b, func([]byte, uint64) {})
	})
	if allocs > 0 {
		t.Errorf("eachKV allocated %.0f times per status file", allocs)
	}
}

// TestParseKV: the keys asked of a status or meminfo text, in bytes; an
// absent key stays absent and ReadKV names it.
func TestParseKV(t *testing.T) {
	m := ParseKV([]byte("Name:\tpostgres\nVmData:\t  1200 kB\nVmStk:\t132 kB\nHugePages_Total:   7\nRssAnon: x kB\n"),
		"VmData", "VmStk", "HugePages_Total", "RssAnon", "VmSwap")
	want := map[string]uint64{"VmData": 1200 << 10, "VmStk": 132 << 10, "HugePages_Total": 7}
	if len(m) != len(want) {
		t.Fatalf("got %v, want %v", m, want)
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %d, want %d", k, m[k], v)
		}
	}
	dir := t.TempDir()
	fs := FS{Proc: dir, Sys: dir, Root: dir}
	if err := os.WriteFile(filepath.Join(dir, "meminfo"), []byte("MemTotal: 10 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadKV(fs, fs.ProcPath("meminfo"), "MemTotal", "Hugetlb"); err == nil || !strings.Contains(err.Error(), "no Hugetlb line") {
		t.Errorf("a missing key: %v", err)
	}
}
