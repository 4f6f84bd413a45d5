package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// binarySizeTolerance is how far the size the docs state may be from a
// fresh build's: code merged since they were written moves it a little.
const binarySizeTolerance = 0.04

var (
	// README: "/usr/bin/dbmem` (static, 23.3 MiB)"
	readmeSize = regexp.MustCompile(`\(static, ([0-9.]+) MiB\)`)
	// docs/deploy.md: "(static, stripped) | 24,440,994 B (23.3 MiB) |"
	deploySize = regexp.MustCompile(`\(static, stripped\) \| ([0-9,]+) B \(([0-9.]+) MiB\)`)
)

// statedSizes returns every size (bytes) the docs state for the static
// binary, by where it is stated.
func statedSizes(docs []docFile) (map[string]float64, error) {
	out := map[string]float64{}
	for _, d := range docs {
		for _, m := range readmeSize.FindAllStringSubmatch(d.text, -1) {
			mib, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return nil, err
			}
			out[d.name+": "+m[0]] = mib * (1 << 20)
		}
		for _, m := range deploySize.FindAllStringSubmatch(d.text, -1) {
			b, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
			mib, err2 := strconv.ParseFloat(m[2], 64)
			if err != nil || err2 != nil {
				return nil, fmt.Errorf("%s: %q", d.name, m[0])
			}
			out[d.name+": bytes in "+m[0]], out[d.name+": MiB in "+m[0]] = b, mib*(1<<20)
		}
	}
	return out, nil
}

// TestDocsStateTheBinarySize builds dbmem as the packages do (static,
// stripped: scripts/package) and compares its size with what README.md
// and docs/deploy.md state, within binarySizeTolerance.
func TestDocsStateTheBinarySize(t *testing.T) {
	if testing.Short() {
		t.Skip("builds dbmem (-short skips it)")
	}
	docs, err := readDocs("../..")
	if err != nil {
		t.Fatal(err)
	}
	stated, err := statedSizes(docs)
	if err != nil || len(stated) < 3 {
		t.Fatalf("want the size in README.md and docs/deploy.md (bytes and MiB), found %v (%v)", stated, err)
	}
	bin := filepath.Join(t.TempDir(), "dbmem")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../../cmd/dbmem")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	got := float64(st.Size())
	for where, want := range stated {
		if d := got/want - 1; d > binarySizeTolerance || d < -binarySizeTolerance {
			t.Errorf("%s: a fresh build is %d B (%.1f MiB), %+.1f%%: update the docs", where, st.Size(), got/(1<<20), 100*d)
		}
	}
}
