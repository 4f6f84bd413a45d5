package bundle

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"github.com/dbmem/dbmem/internal/measure"
	"io"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// captureStats are what the limits bound, measured on a bundle.
type captureStats struct {
	members, dirs, depth int
	bytes, largest       int64
	compressed           int64
}

func statsOf(t testing.TB, p string) captureStats {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	s := captureStats{compressed: st.Size()}
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	dirs := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		s.members++
		s.bytes += h.Size
		s.largest = max(s.largest, h.Size)
		s.depth = max(s.depth, strings.Count(h.Name, "/")+1)
		for d := path.Dir(h.Name); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
		io.Copy(io.Discard, tr)
	}
	s.dirs = len(dirs)
	return s
}

// TestMeasureCapture measures a real capture of a cluster with
// DBMEM_MEASURE_BACKENDS idle client backends (e.g. 1000), the figures
// behind DefaultLimits (docs/security.md). It does not run by default: it
// starts that many backends.
func TestMeasureCapture(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("DBMEM_MEASURE_BACKENDS"))
	if n <= 0 {
		t.Skip("set DBMEM_MEASURE_BACKENDS=1000 to measure a capture of 1,000 backends")
	}
	c := pgtest.Start(t, map[string]string{"shared_buffers": "256MB", "max_connections": strconv.Itoa(n + 20)})
	pgtest.Readers(t, c, n, 8<<20)
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	o := CaptureOptions{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}, Method: measure.Smaps, Version: "measure"}
	if _, err := WriteFile(context.Background(), p, o); err != nil {
		t.Fatal(err)
	}
	s := statsOf(t, p)
	t.Logf("capture with %d backends: %d members, %d directories, depth %d, %d bytes uncompressed (largest member %d), %d bytes compressed",
		n, s.members, s.dirs, s.depth, s.bytes, s.largest, s.compressed)
}
