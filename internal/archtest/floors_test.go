package archtest

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docFloors reads the floors of docs/DEVELOPING.md's architecture table:
// package -> floor.
func docFloors(t *testing.T) map[string]int {
	t.Helper()
	b, err := os.ReadFile("../../docs/DEVELOPING.md")
	if err != nil {
		t.Fatal(err)
	}
	floors := map[string]int{"cli": 8}
	row := regexp.MustCompile(`(?m)^\| (\d) [^|]*\| ([^|]*) \|`)
	for _, m := range row.FindAllStringSubmatch(string(b), -1) {
		f, _ := strconv.Atoi(m[1])
		for _, p := range regexp.MustCompile("`([a-z/]+)`").FindAllStringSubmatch(m[2], -1) {
			floors[p[1]] = f
		}
	}
	if len(floors) < 40 {
		t.Fatalf("docs/DEVELOPING.md places %d packages on floors, want the architecture table", len(floors))
	}
	return floors
}

// TestFloorsMatchDocs: no package imports one on a higher floor than its
// own, as docs/DEVELOPING.md draws them, so the map matches the code.
func TestFloorsMatchDocs(t *testing.T) {
	floors := docFloors(t)
	out, err := exec.Command(goBinary(t), "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(strings.ReplaceAll(line, module, ""))
		from, ok := floors[f[0]]
		if !ok {
			continue
		}
		for _, imp := range f[1:] {
			if to, ok := floors[imp]; ok && to > from {
				t.Errorf("internal/%s (floor %d) imports internal/%s (floor %d): move one, or the map in docs/DEVELOPING.md", f[0], from, imp, to)
			}
		}
	}
}
