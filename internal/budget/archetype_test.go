package budget

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/dbmem/dbmem/internal/units"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const archetypes = "../../testdata/budget/archetypes"

// archExpect is a DBA's verdict on a budget (expect.yaml), written before
// dbmem ran on the archetype.
type archExpect struct {
	Verdict string `json:"verdict"`
	Limit   struct {
		MinGiB float64 `json:"min_gib"`
		MaxGiB float64 `json:"max_gib"`
		Source string  `json:"source"`
	} `json:"limit"`
	Fits        *bool `json:"fits"`
	Concurrency struct {
		Min int `json:"min"`
		Max int `json:"max"`
	} `json:"concurrency"`
	Settings []struct {
		Name    string `json:"name"`
		Value   string `json:"value"`
		Min     string `json:"min"`
		Max     string `json:"max"`
		MinInt  int    `json:"min_int"`
		MaxInt  int    `json:"max_int"`
		Restart bool   `json:"restart"`
		Why     string `json:"why"`
	} `json:"settings"`
	Roles []struct {
		Name        string `json:"name"`
		ProposedMin string `json:"proposed_min"`
		ProposedMax string `json:"proposed_max"`
		None        bool   `json:"none"`
		Why         string `json:"why"`
	} `json:"roles"`
	Lines []struct {
		Name   string  `json:"name"`
		MinMiB float64 `json:"min_mib"`
		MaxMiB float64 `json:"max_mib"`
		Why    string  `json:"why"`
	} `json:"lines"`
	Peers []struct {
		Tool    string `json:"tool"`
		Setting string `json:"setting"`
		Value   string `json:"value"`
		Why     string `json:"why"`
	} `json:"peers"`
	PeerFits map[string]bool `json:"peer_fits"`
	Says     []string        `json:"says"`
}

func loadYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// pgSize reads "64MB", "5041kB", "2GB".
func pgSize(t *testing.T, v string) uint64 {
	t.Helper()
	for _, u := range []struct {
		s string
		m uint64
	}{{"kB", units.KiB}, {"MB", units.MiB}, {"GB", units.GiB}} {
		if n, ok := strings.CutSuffix(v, u.s); ok {
			x, err := strconv.ParseUint(n, 10, 64)
			if err == nil {
				return x * u.m
			}
		}
	}
	t.Fatalf("not a size: %q", v)
	return 0
}

// TestArchetypes runs the budget on every archetype and checks the DBA's
// verdict, then compares the text with budget.golden.
func TestArchetypes(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(archetypes, "*", "input.yaml"))
	if err != nil || len(dirs) < 6 {
		t.Fatalf("%d archetypes (%v), want at least 6", len(dirs), err)
	}
	for _, in := range dirs {
		dir := filepath.Dir(in)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var input PGInput
			var want archExpect
			loadYAML(t, in, &input)
			loadYAML(t, filepath.Join(dir, "expect.yaml"), &want)
			r := Postgres(input)
			checkArchetype(t, r, want)
			var b strings.Builder
			if err := Text(&b, r, 0); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "budget.golden"), b.String())
		})
	}
}
