package pgcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// BinEnv names the environment variable that selects the PostgreSQL binary
// directory (the one holding initdb, pg_ctl and postgres).
const BinEnv = "DBMEM_PG_BIN"

// FindBin returns the PostgreSQL binary directory: dir when given, else
// $DBMEM_PG_BIN, else the newest /usr/lib/postgresql/*/bin, else the directory
// of pg_ctl on $PATH.
func FindBin(dir string) (string, error) {
	if dir == "" {
		dir = os.Getenv(BinEnv)
	}
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err != nil {
			return "", fmt.Errorf("PostgreSQL binaries: no initdb in %s (set --pg-bin or %s to the directory holding initdb)", dir, BinEnv)
		}
		return dir, nil
	}
	if d := newestDebianBin(); d != "" {
		return d, nil
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL binaries not found: install them (apt-get install postgresql) or set %s", BinEnv)
}

func newestDebianBin() string {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	if len(dirs) == 0 {
		return ""
	}
	return filepath.Dir(dirs[0])
}

func versionOf(initdb string) float64 {
	v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(filepath.Dir(initdb))), 64)
	return v
}

// MajorVersion runs `postgres --version` in bin and returns the major version
// (15 for "postgres (PostgreSQL) 15.19 (Debian 15.19-0+deb12u1)").
func MajorVersion(bin string) (int, error) {
	if err := CheckBin(bin, "postgres"); err != nil {
		return 0, err
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "--version")
	cmd.Env = Env()
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("run %s/postgres --version: %w", bin, err)
	}
	return parseMajor(string(out))
}

func parseMajor(s string) (int, error) {
	f := strings.Fields(s)
	for i, w := range f {
		if w == "(PostgreSQL)" && i+1 < len(f) {
			digits := f[i+1]
			n := 0
			for n < len(digits) && digits[n] >= '0' && digits[n] <= '9' {
				n++
			}
			if v, err := strconv.Atoi(digits[:n]); err == nil {
				return v, nil
			}
		}
	}
	return 0, fmt.Errorf("cannot read a PostgreSQL version from %q", strings.TrimSpace(s))
}
