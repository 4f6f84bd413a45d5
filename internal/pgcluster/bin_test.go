package pgcluster

import (
	"strings"
	"testing"
)

func TestParseMajor(t *testing.T) {
	for in, want := range map[string]int{
		"postgres (PostgreSQL) 15.19 (Debian 15.19-0+deb12u1)\n": 15,
		"postgres (PostgreSQL) 17.2\n":                           17,
		"postgres (PostgreSQL) 9.6.24\n":                         9,
		"postgres (PostgreSQL) 18beta1\n":                        18,
	} {
		if got, err := parseMajor(in); err != nil || got != want {
			t.Errorf("parseMajor(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	if _, err := parseMajor("mysqld  Ver 10.11"); err == nil || !strings.Contains(err.Error(), "mysqld") {
		t.Errorf("non-PostgreSQL version text: %v", err)
	}
}

func TestFindBinErrorsNameTheFix(t *testing.T) {
	_, err := FindBin("/nonexistent")
	if err == nil || !strings.Contains(err.Error(), "--pg-bin") || !strings.Contains(err.Error(), BinEnv) {
		t.Errorf("FindBin(/nonexistent) = %v", err)
	}
	if dir, err := FindBin(""); err != nil {
		t.Errorf("no PostgreSQL found on a host that has one: %v", err)
	} else if v, err := MajorVersion(dir); err != nil || v < 10 {
		t.Errorf("MajorVersion(%s) = %d, %v", dir, v, err)
	}
}
