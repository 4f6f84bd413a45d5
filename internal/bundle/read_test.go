package bundle

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// member is one entry of a hand-made tar.
type member struct {
	name, body, link string
	typ              byte
}

func makeTar(t testing.TB, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, m := range ms {
		typ := m.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: m.name, Typeflag: typ, Mode: 0o644, Size: int64(len(m.body)), Linkname: m.link, ModTime: time.Unix(0, 0)}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(m.body))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

const validManifest = `{"schema": "dbmem.bundle/v1", "host": "h", "zone": "UTC"}`

func openBytes(t testing.TB, b []byte, lim Limits) (*Bundle, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return Open(p, lim)
}

func TestOpenRefusesUnsafeMembers(t *testing.T) {
	mf := member{name: "manifest.json", body: validManifest}
	cases := []struct {
		name string
		ms   []member
		want string
	}{
		{"absolute", []member{mf, {name: "/etc/dbmem-pwned", body: "x"}}, "absolute path"},
		{"dotdot", []member{mf, {name: "proc/../../dbmem-pwned", body: "x"}}, "leaves the bundle"},
		{"dotdot-first", []member{mf, {name: "../dbmem-pwned", body: "x"}}, "leaves the bundle"},
		{"unclean", []member{mf, {name: "proc//1/stat", body: "x"}}, "not clean"},
		{"unknown top", []member{mf, {name: "etc/passwd", body: "x"}}, "not under proc/"},
		{"symlink", []member{mf, {name: "root/etc", typ: tar.TypeSymlink, link: "/etc"}}, "not a regular file"},
		{"hardlink", []member{mf, {name: "root/x", typ: tar.TypeLink, link: "/etc/passwd"}}, "not a regular file"},
		{"device", []member{mf, {name: "root/dev", typ: tar.TypeChar}}, "not a regular file"},
		{"duplicate", []member{mf, {name: "proc/1/stat", body: "a"}, {name: "proc/1/stat", body: "b"}}, "duplicate"},
		{"too big", []member{mf, {name: "proc/1/stat", body: strings.Repeat("x", 2048)}}, "over the 1024-byte limit"},
		{"no manifest", []member{{name: "proc/1/stat", body: "x"}}, "no manifest.json"},
		{"other schema", []member{{name: "manifest.json", body: `{"schema": "dbmem.bundle/v9"}`}}, "schema"},
		{"escaping link", []member{mf, {name: "links.json", body: `{"root/etc": "/etc"}`}}, "dbmem records links only"},
		{"link root", []member{mf, {name: "links.json", body: `{"proc/1/root": "/"}`}}, "dbmem records links only"},
		{"link over file", []member{mf, {name: "proc/1/cwd", body: "x"}, {name: "links.json", body: `{"proc/1/cwd": "/var/lib"}`}}, "file exists"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := openBytes(t, makeTar(t, c.ms...), Limits{MaxFileBytes: 1024, MaxTotalBytes: 1 << 20, MaxFiles: 100})
			if err == nil {
				b.Close()
				t.Fatalf("opened, want an error with %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
		})
	}
	if _, err := os.Stat("/etc/dbmem-pwned"); err == nil {
		t.Fatal("a member was written outside the bundle directory")
	}
}

func TestOpenLimits(t *testing.T) {
	var many []member
	many = append(many, member{name: "manifest.json", body: validManifest})
	for i := 0; i < 20; i++ {
		many = append(many, member{name: "proc/" + strings.Repeat("1", i+1) + "/stat", body: strings.Repeat("x", 100)})
	}
	if _, err := openBytes(t, makeTar(t, many...), Limits{MaxFileBytes: 1024, MaxTotalBytes: 1 << 20, MaxFiles: 10}); err == nil || !strings.Contains(err.Error(), "more than 10 members") {
		t.Errorf("member count: %v", err)
	}
	if _, err := openBytes(t, makeTar(t, many...), Limits{MaxFileBytes: 1024, MaxTotalBytes: 1000, MaxFiles: 100}); err == nil || !strings.Contains(err.Error(), "add up to more than") {
		t.Errorf("total size: %v", err)
	}
	if _, err := openBytes(t, []byte("not gzip at all"), DefaultLimits); err == nil || !strings.Contains(err.Error(), "not a gzip file") {
		t.Errorf("not gzip: %v", err)
	}
}

// A bundle written by contents.write reads back: files, the live answers,
// the /proc links as symlinks that readlink returns.
func TestWriteOpenRoundTrip(t *testing.T) {
	c := contents{
		manifest: Manifest{Schema: Schema, Host: "h", CapturedAt: time.Unix(1e9, 0).UTC()},
		files:    map[string][]byte{"proc/1/stat": []byte("1 (postgres) S 0"), "root/etc/x.conf": []byte("a = 1\n"), "logs/kernel/01-dmesg.txt": []byte("k\n")},
		links:    map[string]string{"proc/1/cwd": "/var/lib/postgresql/15/main", "proc/1/ns/ipc": "ipc:[4026531839]"},
	}
	var buf bytes.Buffer
	if err := c.write(&buf); err != nil {
		t.Fatal(err)
	}
	b, err := openBytes(t, buf.Bytes(), DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.Manifest.Host != "h" || !b.Manifest.CapturedAt.Equal(c.manifest.CapturedAt) {
		t.Errorf("manifest = %+v", b.Manifest)
	}
	fs := b.FS()
	if got, err := fs.ReadFile(fs.ProcPath("1", "stat")); err != nil || string(got) != "1 (postgres) S 0" {
		t.Errorf("stat = %q, %v", got, err)
	}
	if got, err := fs.Readlink(fs.ProcPath("1", "cwd")); err != nil || got != "/var/lib/postgresql/15/main" {
		t.Errorf("cwd = %q, %v", got, err)
	}
	if got, err := fs.ReadFile(fs.HostPath("/etc/x.conf")); err != nil || string(got) != "a = 1\n" {
		t.Errorf("x.conf = %q, %v", got, err)
	}
	if _, err := os.Stat(b.Dir); !os.IsNotExist(err) {
		t.Errorf("%s exists on disk: a bundle is read in memory", b.Dir)
	}
	b.Close()
	if _, err := fs.ReadFile(fs.ProcPath("1", "stat")); err == nil {
		t.Error("a closed bundle still reads")
	}
}
