package hostchange

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

type testRun struct {
	Schema string `json:"schema"`
	ID     string `json:"id"`
}

func readTestRun(p string) (*testRun, error) {
	return ReadRun(p, "test/v1", func(r *testRun) string { return r.Schema })
}

// TestRunIDsAreUnique: runs started within one millisecond get distinct
// ids (the record is created exclusively).
func TestRunIDsAreUnique(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, _, err := ClaimRun(dir, start)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || seen[id] {
				t.Errorf("ClaimRun: %q, %v (seen before: %v)", id, err, seen[id])
			}
			seen[id] = true
		}()
	}
	wg.Wait()
	if len(seen) != 40 {
		t.Errorf("%d distinct ids, want 40", len(seen))
	}
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("run directory: %v, %v; want a 0700 directory", st, err)
	}
}

// TestListRuns: records come back oldest first by id ("X" before "X-2"),
// claimed-but-empty and hidden files are skipped, and a record of another
// schema is refused, naming both schemas.
func TestListRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "runs")
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	var ids []string
	for i := 0; i < 3; i++ {
		id, p, err := ClaimRun(dir, start)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		if i < 2 {
			if err := SaveRun(p, testRun{Schema: "test/v1", ID: id}); err != nil {
				t.Fatal(err)
			}
		}
	}
	os.WriteFile(filepath.Join(dir, ".half.json"), []byte("{"), 0o600)
	got, err := ListRuns(dir, readTestRun)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != ids[0] || got[1].ID != ids[1] || ids[1] != ids[0]+"-2" {
		t.Fatalf("ListRuns = %+v, want the two saved runs %v in order", got, ids[:2])
	}
	SaveRun(filepath.Join(dir, ids[2]+".json"), testRun{Schema: "other/v9"})
	if _, err := ListRuns(dir, readTestRun); err == nil || !strings.Contains(err.Error(), `schema "other/v9", this dbmem reads "test/v1"`) {
		t.Errorf("a record of another schema: %v", err)
	}
	if got, err := ListRuns(filepath.Join(dir, "none"), readTestRun); err != nil || got != nil {
		t.Errorf("a missing directory: %v, %v; want no runs", got, err)
	}
}
