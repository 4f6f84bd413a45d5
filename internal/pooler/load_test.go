package pooler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/throwaway"
)

// nobody reads files as the account a pooler run by nobody would.
var nobody = &linux.Account{UID: 65534, GIDs: []uint32{65534}}

// confDir makes a directory nobody may enter, with files (mode 0644,
// owned by root) written in it.
func confDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := throwaway.Dir("", "dbmem-pooler-conf-", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t *testing.T, dir, main string, b confbudget.Budget) loaded {
	t.Helper()
	return loadINI(context.Background(), linux.DefaultFS().As(nobody), filepath.Join(dir, main), dir, b)
}

// TestLoadIncludes: includes are expanded where they stand (a section
// opened in an include holds after it, as in libusual), a relative path
// is taken from the pooler's working directory.
func TestLoadIncludes(t *testing.T) {
	dir := confDir(t, map[string]string{
		"main.ini":  "[pgbouncer]\n%include sub/a.ini\ndefault_pool_size = 5\n%include " + "DIR/b.ini\nmax_client_conn = 9\n",
		"sub/a.ini": "pool_mode = transaction\n",
		"b.ini":     "[databases]\napp = dbname=app\n",
	})
	os.WriteFile(filepath.Join(dir, "main.ini"), []byte(strings.ReplaceAll(mustRead(t, filepath.Join(dir, "main.ini")), "DIR", dir)), 0o644)
	l := load(t, dir, "main.ini", Budget)
	if l.Refused || len(l.Problems) > 0 {
		t.Fatal(l.Problems)
	}
	if len(l.Files) != 3 || l.Files[1] != filepath.Join(dir, "sub/a.ini") {
		t.Errorf("files %v", l.Files)
	}
	c, probs := parsePgBouncer(l)
	if c.PoolMode.S != "transaction" || c.DefaultPoolSize.N != 5 || len(c.Databases) != 1 {
		t.Errorf("config %+v", c)
	}
	// b.ini opened [databases]: max_client_conn after its include is a
	// database to PgBouncer, with a connection string it refuses.
	if len(probs) != 1 || !strings.Contains(probs[0].String(), "main.ini:5: [databases] max_client_conn: expected key=value") {
		t.Errorf("problems %v", probs)
	}
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLoadRefusesHostileConfigs: each is said with its file and line, and
// nothing past it is used.
func TestLoadRefusesHostileConfigs(t *testing.T) {
	chain := map[string]string{}
	for i := 0; i < 12; i++ {
		chain[fmt.Sprintf("c%d.ini", i)] = fmt.Sprintf("%%include c%d.ini\n", i+1)
	}
	chain["c12.ini"] = "[pgbouncer]\n"
	cases := []struct {
		name  string
		files map[string]string
		b     confbudget.Budget
		setup func(dir string)
		want  string
	}{
		{"loop", map[string]string{"a.ini": "[pgbouncer]\n%include b.ini\n", "b.ini": "%include a.ini\n"}, Budget, nil, "DIR/b.ini:1: DIR/a.ini: refused: an include cycle: DIR/a.ini includes DIR/b.ini includes DIR/a.ini"},
		{"depth", chain, Budget, nil, "includes nested more than 10 deep: DIR/c0.ini includes DIR/c1.ini"},
		{"malformed", map[string]string{"a.ini": "[pgbouncer]\npool_mode session\n"}, Budget, nil, `a.ini:2: no = after the key "pool_mode"`},
		{"too big", map[string]string{"a.ini": "%include big.ini\n", "big.ini": strings.Repeat(";\n", 600000)}, Budget, nil, "DIR/a.ini:1: DIR/big.ini: refused: more than 1048576 bytes"},
		{"total", map[string]string{"a.ini": "%include b.ini\n%include b.ini\n", "b.ini": strings.Repeat(";\n", 1000)}, confbudget.Budget{TotalBytes: 3000}, nil, "more than 970 bytes (one file may hold 1048576, all of them 3000; 2030 read before it)"},
		{"files", map[string]string{"a.ini": "%include b.ini\n%include b.ini\n%include b.ini\n", "b.ini": ";\n"}, confbudget.Budget{Files: 3}, nil, "more than 3 files in one configuration"},
		{"time", map[string]string{"a.ini": ";\n"}, confbudget.Budget{Time: time.Nanosecond}, nil, "reading the configuration took more than 1ns"},
		{"missing", map[string]string{"a.ini": "%include nowhere.ini\n"}, Budget, nil, "no such file or directory"},
		{"root only", map[string]string{"a.ini": "%include secret.ini\n", "secret.ini": "x\n"}, Budget,
			func(dir string) { os.Chmod(filepath.Join(dir, "secret.ini"), 0o600) }, "not readable by the database account"},
		{"account's link", map[string]string{"a.ini": "%include link.ini\n"}, Budget,
			func(dir string) {
				os.Symlink("/etc/shadow", filepath.Join(dir, "link.ini"))
				os.Lchown(filepath.Join(dir, "link.ini"), 65534, 65534)
			}, "symbolic link owned by uid 65534"},
		{"main file unreadable", map[string]string{"a.ini": "[pgbouncer]\n"}, Budget,
			func(dir string) { os.Chmod(filepath.Join(dir, "a.ini"), 0o600) }, "a.ini: read "},
		{"fifo", map[string]string{"a.ini": "%include fifo.ini\n"}, Budget,
			func(dir string) { syscall.Mkfifo(filepath.Join(dir, "fifo.ini"), 0o644) }, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := confDir(t, c.files)
			if c.setup != nil {
				c.setup(dir)
			}
			main := "a.ini"
			if c.name == "depth" {
				main = "c0.ini"
			}
			l := load(t, dir, main, c.b)
			want := strings.ReplaceAll(c.want, "DIR", dir)
			if !l.Refused || len(l.Problems) != 1 || !strings.Contains(l.Problems[0].String(), want) {
				t.Errorf("refused %v, problems %v; want one saying %q", l.Refused, l.Problems, want)
			}
			if strings.Contains(fmt.Sprint(l.Items), "root:") {
				t.Error("a line of /etc/shadow was read")
			}
		})
	}
}

// TestRelativeIncludeWithoutCwd: a relative include is not guessed.
func TestRelativeIncludeWithoutCwd(t *testing.T) {
	dir := confDir(t, map[string]string{"a.ini": "%include b.ini\n", "b.ini": "[pgbouncer]\n"})
	l := loadINI(context.Background(), linux.DefaultFS(), filepath.Join(dir, "a.ini"), "", Budget)
	if !l.Refused || !strings.Contains(l.Problems[0].What, "working directory is unknown") {
		t.Errorf("%+v", l)
	}
}

// TestLoadRefusesASparseIncludeUnread: the pooler's reads are
// confbudget's: an included 512 MiB sparse file is refused by its size,
// naming it and the bound, and nothing of it is read.
func TestLoadRefusesASparseIncludeUnread(t *testing.T) {
	dir := confDir(t, map[string]string{"a.ini": "[pgbouncer]\n%include big.ini\n", "big.ini": "[databases]\n"})
	if err := os.Truncate(filepath.Join(dir, "big.ini"), 512<<20); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	l := load(t, dir, "a.ini", Budget)
	runtime.ReadMemStats(&after)
	want := filepath.Join(dir, "a.ini") + ":2: " + filepath.Join(dir, "big.ini") + ": refused: more than 1048576 bytes"
	if !l.Refused || len(l.Problems) != 1 || !strings.HasPrefix(l.Problems[0].String(), want) ||
		!strings.HasSuffix(l.Problems[0].What, "("+confbudget.ErrOverBudget.Error()+")") {
		t.Errorf("problems %v; want one starting %q, confbudget's refusal", l.Problems, want)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("refusing it allocated %d bytes", alloc)
	}
}

// TestOdysseyIncludesShareTheBudget: Odyssey's includes go through the
// same reader, 16 deep (its own limit, not PgBouncer's 10), a cycle
// refused naming the chain.
func TestOdysseyIncludesShareTheBudget(t *testing.T) {
	files := map[string]string{"o12.conf": "workers 1\n", "loop.conf": "include \"loop2.conf\"\n", "loop2.conf": "include \"loop.conf\"\n"}
	for i := 0; i < 12; i++ {
		files[fmt.Sprintf("o%d.conf", i)] = fmt.Sprintf("include \"o%d.conf\"\n", i+1)
	}
	dir := confDir(t, files)
	for main, want := range map[string]string{"o0.conf": "", "loop.conf": "loop2.conf:1: DIR/loop.conf: refused: an include cycle: DIR/loop.conf includes DIR/loop2.conf includes DIR/loop.conf"} {
		p := &Pooler{Kind: Odyssey, ConfigFile: filepath.Join(dir, main)}
		p.readConfig(context.Background(), linux.DefaultFS().As(nobody), dir)
		want = strings.ReplaceAll(want, "DIR", dir)
		if got := fmt.Sprint(p.Problems); want == "" && (p.Refused || len(p.Files) != 13) || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: refused %v, %d files, problems %s; want %q", main, p.Refused, len(p.Files), got, want)
		}
	}
}
