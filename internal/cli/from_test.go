package cli

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/corpus"
)

// A capture of a host whose meminfo is a partial copy keeps the unknown
// unknown when it is read elsewhere (--from), and the report says when it
// was captured and how long ago, not when it was read.
func TestFromKeepsUnknownAndSaysCaptureTime(t *testing.T) {
	tree := t.TempDir()
	c := corpus.Case{Name: "grep paste", Base: corpus.BasePG15Off, Inputs: []string{"meminfo/m13-ngic-grep-huge-9000.txt"}}
	if err := corpus.Build(c, filepath.Join("..", "..", "testdata", "partial"),
		filepath.Join("..", "..", "testdata", "fixtures", "pg15-hugepages-off"), tree); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(t.TempDir(), "partial.tar.gz")
	roots := []string{"--proc", filepath.Join(tree, "proc"), "--sys", filepath.Join(tree, "sys"), "--root", filepath.Join(tree, "root")}
	if code, out, stderr := run(t, append(roots, "capture", "-o", b, "--fast")...); code != ExitOK {
		t.Fatalf("capture: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr := run(t, "--from", b, "report", "--fast")
	if code != ExitOK {
		t.Fatalf("report --from: exit %d: %s", code, stderr)
	}
	header := strings.SplitN(out, "\n", 2)[0]
	if !regexp.MustCompile(`captured 20\d\d-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+s ago\) in ` + regexp.QuoteMeta(b)).MatchString(header) {
		t.Errorf("header %q: want the capture's time, its age and the bundle", header)
	}
	for _, want := range []string{"Memory       unknown total", "Page tables  unknown", "host  2 MiB   9000"} {
		if !strings.Contains(out, want) {
			t.Errorf("report --from lacks %q:\n%s", want, out)
		}
	}
	_, js, _ := run(t, "--from", b, "report", "--fast", "--json")
	var doc struct {
		Snapshot struct {
			TakenAt time.Time `json:"taken_at"`
			Host    struct {
				Meminfo map[string]any `json:"meminfo"`
			} `json:"host"`
		} `json:"snapshot"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	if _, ok := doc.Snapshot.Host.Meminfo["mem_total_bytes"]; ok || doc.Snapshot.Host.Meminfo["huge_pages_total"] != 9000.0 {
		t.Errorf("meminfo read from the bundle: %v", doc.Snapshot.Host.Meminfo)
	}
	if age := time.Since(doc.Snapshot.TakenAt); age < 0 || age > time.Hour {
		t.Errorf("taken_at %v: want the capture's time", doc.Snapshot.TakenAt)
	}
}

// A bundle's errors name the file the user gave and the path on the
// captured host, once; never the directory it was extracted to.
func TestFromErrorNamesTheBundle(t *testing.T) {
	b := filepath.Join(t.TempDir(), "no-meminfo.tar.gz")
	writeBundle(t, b, map[string]string{
		"manifest.json": `{"schema":"dbmem.bundle/v1","captured_at":"2026-11-24T10:00:00Z","host":"db1"}`,
		"proc/1/stat":   "1 (init) S 0 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 1 0 0\n",
	})
	code, _, stderr := run(t, "--from", b, "report")
	want := "dbmem: read " + b + ":/proc/meminfo: no such file or directory\n"
	if code != ExitError || stderr != want {
		t.Errorf("exit %d, stderr %q; want %q", code, stderr, want)
	}
	if strings.Contains(stderr, os.TempDir()+"/dbmem-bundle-") {
		t.Errorf("the error names the extraction directory: %s", stderr)
	}
}

func writeBundle(t *testing.T, path string, files map[string]string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	for _, c := range []interface{ Close() error }{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
