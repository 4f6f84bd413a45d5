package pgtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/dbmem/dbmem/internal/pgcluster"
)

// CacheEnv names the environment variable that moves the directory
// scripts/fetch-postgres unpacks PostgreSQL versions into (DefaultCache).
const CacheEnv = "DBMEM_PG_CACHE"

// DefaultCache holds one directory per major version, each with bin, lib
// and share, as scripts/fetch-postgres leaves them.
const DefaultCache = "/var/cache/dbmem/postgres"

// ExtraMajors are the major versions scripts/fetch-postgres pins, besides
// the one Debian installs.
var ExtraMajors = []int{13, 14, 16, 17, 18}

// Version is one PostgreSQL version the tests can run: its major version
// and binary directory. Bin is "" when the version is not fetched.
type Version struct {
	Major int
	Bin   string
	// Installed marks the default binaries (pgcluster.FindBin), not the cache.
	Installed bool
}

// Name names the version in subtests: "pg17".
func (v Version) Name() string { return "pg" + strconv.Itoa(v.Major) }

// CacheDir returns $DBMEM_PG_CACHE, else DefaultCache.
func CacheDir() string {
	if d := os.Getenv(CacheEnv); d != "" {
		return d
	}
	return DefaultCache
}

// ExtraVersions lists ExtraMajors with their binary directory in the cache,
// Bin "" for those not fetched.
func ExtraVersions() []Version {
	out := make([]Version, 0, len(ExtraMajors))
	for _, m := range ExtraMajors {
		v := Version{Major: m}
		bin := filepath.Join(CacheDir(), strconv.Itoa(m), "bin")
		if _, err := os.Stat(filepath.Join(bin, "postgres")); err == nil {
			v.Bin = bin
		}
		out = append(out, v)
	}
	return out
}

// Versions returns the installed version (what pgtest.Start runs by
// default) followed by ExtraVersions, leaving out an extra version that is
// the installed one.
func Versions(t testing.TB) []Version {
	t.Helper()
	bin, err := pgcluster.FindBin("")
	if err != nil {
		t.Fatal(err)
	}
	major, err := pgcluster.MajorVersion(bin)
	if err != nil {
		t.Fatal(err)
	}
	out := []Version{{Major: major, Bin: bin, Installed: true}}
	for _, v := range ExtraVersions() {
		if v.Major != major {
			out = append(out, v)
		}
	}
	return out
}

// ForEachVersion runs f in a subtest per version of Versions from major
// minMajor on. A version not fetched skips its subtest, naming the script
// that fetches it. Inside f, $DBMEM_PG_BIN is the version's binary
// directory, so Start, Create and StartWithHugePages run that version.
func ForEachVersion(t *testing.T, minMajor int, f func(t *testing.T, v Version)) {
	t.Helper()
	for _, v := range Versions(t) {
		if v.Major < minMajor {
			continue
		}
		t.Run(v.Name(), func(t *testing.T) {
			if v.Bin == "" {
				t.Skipf("PostgreSQL %d is not in %s: run scripts/fetch-postgres (set %s to use another directory)", v.Major, CacheDir(), CacheEnv)
			}
			if err := checkMajor(v); err != nil {
				t.Fatal(err)
			}
			t.Setenv(pgcluster.BinEnv, v.Bin)
			f(t, v)
		})
	}
}

// checkMajor makes sure the binaries are the version they are filed under
// and run (their libraries load).
func checkMajor(v Version) error {
	m, err := pgcluster.MajorVersion(v.Bin)
	if err != nil {
		return fmt.Errorf("%w (run scripts/fetch-postgres again)", err)
	}
	if m != v.Major {
		return fmt.Errorf("%s holds PostgreSQL %d, not %d", v.Bin, m, v.Major)
	}
	return nil
}
