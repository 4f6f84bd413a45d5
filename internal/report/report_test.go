package report_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"github.com/dbmem/dbmem/internal/measure"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/capture"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/report"
	"github.com/dbmem/dbmem/internal/snapshot"
	"github.com/dbmem/dbmem/internal/units"
	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files")

var fixtures = []string{"pg15-hugepages-off", "pg15-hugepages-on"}

// fixtureSnapshot reads a recorded tree as if it were the live host.
func fixtureSnapshot(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	dir := filepath.Join("..", "..", "testdata", "fixtures", name)
	s, err := snapshot.Take(context.Background(), snapshot.Options{
		FS: capture.TreeFS(dir), Live: capture.TreeLive{Dir: dir}, Method: measure.Smaps,
		Now: func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Elapsed = 42 * time.Millisecond
	return s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(got)); d != "" {
		t.Errorf("%s differs (-want +got):\n%s", path, d)
	}
}

func TestTextGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.Text(&b, fixtureSnapshot(t, name), report.Options{}); err != nil {
				t.Fatal(err)
			}
			golden(t, name+".txt", b.Bytes())
		})
	}
}

func TestTextAllListsEveryProcess(t *testing.T) {
	s := fixtureSnapshot(t, "pg15-hugepages-off")
	var b bytes.Buffer
	report.Text(&b, s, report.Options{All: true})
	for _, p := range s.Postgres[0].Processes {
		if !bytes.Contains(b.Bytes(), []byte("\n  "+itoa(p.PID)+"  ")) && !bytes.Contains(b.Bytes(), []byte(" "+itoa(p.PID)+"  ")) {
			t.Errorf("--all output lacks pid %d", p.PID)
		}
	}
	var short bytes.Buffer
	report.Text(&short, s, report.Options{TopClients: 3})
	if !bytes.Contains(short.Bytes(), []byte("7 more client backends")) {
		t.Errorf("top 3 of 10 clients should hide 7:\n%s", short.String())
	}
}

func TestJSONRoundTrip(t *testing.T) {
	s := fixtureSnapshot(t, "pg15-hugepages-on")
	var b bytes.Buffer
	if err := report.JSON(&b, s); err != nil {
		t.Fatal(err)
	}
	var doc report.Document
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != report.JSONSchema || doc.Snapshot.Schema != snapshot.Schema {
		t.Errorf("schemas %q/%q", doc.Schema, doc.Snapshot.Schema)
	}
	if len(doc.Summaries) != 1 || doc.Summaries[0].ClientBackends != 10 {
		t.Errorf("summaries = %+v, want one instance with 10 client backends", doc.Summaries)
	}
	in := doc.Snapshot.Postgres[0]
	if in.Shared == nil || !in.Shared.Hugetlb || len(in.Processes) != len(s.Postgres[0].Processes) {
		t.Errorf("instance did not survive the round trip: %+v", in.Shared)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestFastPssAnonShown: a process measured by the fast path has no
// smaps_rollup (no Pss, no Pss_Shmem) but an exact Pss_Anon, which the
// PSS_ANON column shows.
func TestFastPssAnonShown(t *testing.T) {
	s := fixtureSnapshot(t, "pg15-hugepages-off")
	p := &s.Postgres[0].Processes[len(s.Postgres[0].Processes)-1]
	p.Rollup, p.Private = nil, &linux.PrivateMeasure{Method: "fast", PssAnonBytes: 3 << 20}
	var b bytes.Buffer
	if err := report.Text(&b, s, report.Options{All: true}); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 14 || f[0] != itoa(p.PID) {
			continue
		}
		if pss, anon, shmem := f[len(f)-6], f[len(f)-5], f[len(f)-4]; pss != "-" || anon != units.Short(3<<20) || shmem != "-" {
			t.Errorf("PSS %q PSS_ANON %q PSS_SHMEM %q, want - %s -:\n%s", pss, anon, shmem, units.Short(3<<20), l)
		}
		return
	}
	t.Fatalf("no row for pid %d:\n%s", p.PID, b.String())
}
