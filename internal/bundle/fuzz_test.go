package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// fuzzLimits are small, so the fuzzer reaches them.
var fuzzLimits = Limits{MaxFileBytes: 1 << 16, MaxTotalBytes: 1 << 20, MaxFiles: 200, MaxDirs: 100, MaxDepth: 12}

// hostileSeeds are crafted bundles: each must be refused or read within
// the limits, writing nothing anywhere.
func hostileSeeds(t testing.TB) [][]byte {
	mf := member{name: "manifest.json", body: validManifest}
	deep := "proc/" + strings.Repeat("d/", 40) + "f"
	var manyDirs []member
	for i := 0; i < 30; i++ {
		manyDirs = append(manyDirs, member{name: "proc/" + strings.Repeat(string(rune('a'+i%26))+"x/", 8) + "f", body: "x"})
	}
	return [][]byte{
		makeTar(t, mf, member{name: deep, body: "x"}),
		makeTar(t, append([]member{mf}, manyDirs...)...),
		makeTar(t, mf, member{name: "proc/1/stat", body: strings.Repeat("\x00", 1<<17)}), // a small bomb
		makeTar(t, mf, member{name: "root/etc", typ: tar.TypeSymlink, link: "/etc"}),
		makeTar(t, mf, member{name: "root/x", typ: tar.TypeLink, link: "manifest.json"}),
		makeTar(t, mf, member{name: "root/dev/sda", typ: tar.TypeBlock}),
		makeTar(t, mf, member{name: "root/fifo", typ: tar.TypeFifo}),
		makeTar(t, mf, member{name: "../../etc/cron.d/x", body: "* * * * * root id"}),
		makeTar(t, mf, member{name: "proc/1/stat", body: "a"}, member{name: "proc/1/stat", body: "b"}),
		makeTar(t, mf, member{name: "proc/1", body: "a"}, member{name: "proc/1/stat", body: "b"}),
		makeTar(t, mf, member{name: "links.json", body: `{"proc/1/cwd": "/", "proc/1/cwd/x": "/y"}`}),
		makeTar(t, mf, member{name: "links.json", body: `{"proc/1/exe": "/usr/bin/postgres"}`}, member{name: "proc/1/stat", body: "1 (postgres) S 0"}),
	}
}

// FuzzOpen: no input crashes Open, writes anything, or yields a tree
// beyond the limits or with a name, link or type Open must refuse.
func FuzzOpen(f *testing.F) {
	var buf bytes.Buffer
	c := contents{manifest: Manifest{Schema: Schema}, files: map[string][]byte{"proc/1/stat": []byte("x")}, links: map[string]string{"proc/1/cwd": "/x"}}
	if err := c.write(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	for _, s := range hostileSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parent := t.TempDir()
		p := filepath.Join(parent, "in.tar.gz")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		b, err := Open(p, fuzzLimits)
		if err == nil {
			checkTree(t, b.tree, fuzzLimits)
		}
		if ents, _ := os.ReadDir(parent); len(ents) != 1 {
			t.Errorf("something was written next to the bundle: %v", ents)
		}
	})
}

// checkTree: every name is one checkName accepts, within the depth; links
// only where dbmem records them; counts within the limits.
func checkTree(t *testing.T, tr *tree, lim Limits) {
	t.Helper()
	for name, b := range tr.files {
		if checkName(name) != nil || strings.Count(name, "/")+1 > lim.MaxDepth || int64(len(b)) > lim.MaxFileBytes {
			t.Errorf("member %q (%d bytes) should have been refused", name, len(b))
		}
	}
	for name, target := range tr.links {
		if checkLink(name, target) != nil {
			t.Errorf("link %q -> %q should have been refused", name, target)
		}
	}
	if len(tr.files)+len(tr.links) > lim.MaxFiles || len(tr.dirs) > lim.MaxDirs+1 {
		t.Errorf("%d files, %d links, %d directories: beyond %+v", len(tr.files), len(tr.links), len(tr.dirs), lim)
	}
}

// TestOpenHostileBundles: each crafted bundle is refused with an error
// that names the limit and a real capture's figures, quickly and without
// writing to disk; the seeds of FuzzOpen too.
func TestOpenHostileBundles(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	mf := member{name: "manifest.json", body: validManifest}
	var dirs []member // 5,000 members of 22 new directories each: 110,000 > 100,000
	for i := 0; i < 5000; i++ {
		dirs = append(dirs, member{name: "proc/" + strings.Repeat("d"+itoa(i)+"/", 22) + "f"})
	}
	cases := []struct {
		name string
		data []byte
		lim  Limits
		want string
	}{
		{"many directories", makeTar(t, append([]member{mf}, dirs...)...), DefaultLimits, "more than 100000 directories: refusing; a real capture"},
		{"deep", makeTar(t, mf, member{name: "proc/" + strings.Repeat("d/", 30) + "f", body: "x"}), DefaultLimits, "32 path components, more than 24"},
		{"one huge member", hugeMember(t, 3_700_000_000), DefaultLimits, "over the 268435456-byte limit for one member"},
		{"bomb of many members", zeros(t, 5, 2<<20), Limits{MaxTotalBytes: 8 << 20}, "members add up to more than 8388608 bytes"},
		{"many members", makeTar(t, append([]member{mf}, dirs[:300]...)...), Limits{MaxFiles: 100}, "more than 100 members: refusing; a real capture"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := openBytes(t, c.data, c.lim)
			if err == nil {
				t.Fatalf("opened (%d files), want %q", len(b.tree.files), c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
			t.Logf("%d bytes: %v", len(c.data), err)
		})
	}
	for i, s := range hostileSeeds(t) {
		if b, err := openBytes(t, s, fuzzLimits); err == nil {
			checkTree(t, b.tree, fuzzLimits)
			if i != len(hostileSeeds(t))-1 {
				t.Errorf("hostile seed %d was opened", i)
			}
		}
	}
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("reading bundles wrote to $TMPDIR: %v", ents)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// hugeMember is a bundle whose second member declares size bytes and is
// cut short: Open must refuse it from the header, before reading.
func hugeMember(t *testing.T, size int64) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "manifest.json", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(validManifest)), ModTime: time.Unix(0, 0)})
	tw.Write([]byte(validManifest))
	if err := tw.WriteHeader(&tar.Header{Name: "proc/1/stat", Typeflag: tar.TypeReg, Mode: 0o644, Size: size, ModTime: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	tw.Flush()
	zw.Close()
	return buf.Bytes()
}

// zeros is a gzip bomb: n members of size zero bytes each.
func zeros(t *testing.T, n int, size int) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	tw.WriteHeader(&tar.Header{Name: "manifest.json", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(validManifest)), ModTime: time.Unix(0, 0)})
	tw.Write([]byte(validManifest))
	z := make([]byte, size)
	for i := 0; i < n; i++ {
		tw.WriteHeader(&tar.Header{Name: "logs/db/0" + itoa(i) + "-x.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(size), ModTime: time.Unix(0, 0)})
		tw.Write(z)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// FuzzLoadTar fuzzes the tar itself (gzip is added here, so mutations
// reach the headers and names): loading never panics and never yields a
// tree beyond the limits.
func FuzzLoadTar(f *testing.F) {
	for _, s := range hostileSeeds(f) {
		zr, err := gzip.NewReader(bytes.NewReader(s))
		if err != nil {
			f.Fatal(err)
		}
		var raw bytes.Buffer
		raw.ReadFrom(zr)
		if raw.Len() < 32<<10 { // big inputs stall the coverage-guided fuzzer
			f.Add(raw.Bytes())
		}
	}
	f.Fuzz(func(t *testing.T, tarBytes []byte) {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(tarBytes)
		zw.Close()
		l := &loader{lim: fuzzLimits, t: newTree()}
		if l.read(&gz) == nil && addLinks(l) == nil {
			checkTree(t, l.t, fuzzLimits)
		}
	})
}
