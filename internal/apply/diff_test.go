package apply

import (
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiffExample(t *testing.T) {
	a := "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n"
	b := "a\nb\nC\nd\ne\nf\ng\nh\ni\nj\nk\n"
	want := `--- old
+++ new
@@ -1,6 +1,6 @@
 a
 b
-c
+C
 d
 e
 f
@@ -8,3 +8,4 @@
 h
 i
 j
+k
`
	if got := unifiedDiff(a, b, "old", "new"); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	far := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	got := unifiedDiff(far, strings.Replace(strings.Replace(far, "2\n", "two\n", 1), "11\n", "eleven\n", 1), "a", "b")
	if n := strings.Count(got, "@@ -"); n != 2 {
		t.Errorf("changes 9 lines apart need 2 hunks, got %d:\n%s", n, got)
	}
	if got := unifiedDiff("", "x\n", "a", "b"); !strings.Contains(got, "@@ -0,0 +1,1 @@\n+x\n") {
		t.Errorf("new file diff:\n%s", got)
	}
	if unifiedDiff("same\n", "same\n", "a", "b") != "" {
		t.Error("equal texts must give no diff")
	}
}

// TestUnifiedDiffPatches checks random edits with GNU patch: applying the
// diff to the old text must give the new one.
func TestUnifiedDiffPatches(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not installed")
	}
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	for i := 0; i < 60; i++ {
		a, b := randomText(rng), randomText(rng)
		d := unifiedDiff(a, b, "f", "f")
		if d == "" {
			continue
		}
		f := filepath.Join(dir, "f")
		os.WriteFile(f, []byte(a), 0o644)
		cmd := exec.Command("patch", "--quiet", "--force", f)
		cmd.Stdin = strings.NewReader(d)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("patch rejected the diff: %v %s\n%q -> %q\n%s", err, out, a, b, d)
		}
		if got, _ := os.ReadFile(f); string(got) != b {
			t.Fatalf("patched %q, want %q\ndiff:\n%s", got, b, d)
		}
	}
}

func randomText(rng *rand.Rand) string {
	var b strings.Builder
	for n := rng.Intn(25); n > 0; n-- {
		b.WriteString([]string{"a", "b", "c", "vm.x = 1", ""}[rng.Intn(5)] + "\n")
	}
	if rng.Intn(4) == 0 {
		b.WriteString("tail")
	}
	return b.String()
}

func FuzzUnifiedDiff(f *testing.F) {
	f.Add("a\nb\n", "a\nc\n")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := unifiedDiff(a, b, "a", "b")
		if (d == "") != (a == b) {
			t.Fatalf("diff of %q and %q is %q", a, b, d)
		}
	})
}
