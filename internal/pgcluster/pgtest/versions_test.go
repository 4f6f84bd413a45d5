package pgtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
)

// TestVersionsPinned: ExtraMajors are the majors scripts/fetch-postgres pins.
func TestVersionsPinned(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "scripts", "fetch-postgres"))
	if err != nil {
		t.Fatal(err)
	}
	var pinned []int
	for _, m := range regexp.MustCompile(`(?m)^\s*"(\d+) (\d+)\.\d+\.\d+\S* [0-9a-f]{64}"$`).FindAllSubmatch(b, -1) {
		major, _ := strconv.Atoi(string(m[1]))
		if string(m[1]) != string(m[2]) {
			t.Errorf("pin %q: package version is not of major %d", m[0], major)
		}
		pinned = append(pinned, major)
	}
	if !slices.Equal(pinned, ExtraMajors) {
		t.Errorf("scripts/fetch-postgres pins %v, ExtraMajors is %v", pinned, ExtraMajors)
	}
}

// TestVersionsCache: $DBMEM_PG_CACHE moves the cache; a major counts only
// with bin/postgres in it.
func TestVersionsCache(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(CacheEnv, dir)
	if err := os.MkdirAll(filepath.Join(dir, "17", "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "17", "bin", "postgres"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "18", "bin"), 0o755) // unpacked halfway
	for _, v := range ExtraVersions() {
		want := ""
		if v.Major == 17 {
			want = filepath.Join(dir, "17", "bin")
		}
		if v.Bin != want {
			t.Errorf("PostgreSQL %d: Bin %q, want %q", v.Major, v.Bin, want)
		}
	}
}
