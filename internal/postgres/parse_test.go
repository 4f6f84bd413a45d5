package postgres

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/confbudget"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
	"github.com/google/go-cmp/cmp"
)

func TestParseTitle(t *testing.T) {
	tests := []struct {
		title, cluster string
		want           Title
	}{
		{"postgres: 15/main: checkpointer ", "", Title{Role: RoleCheckpointer}},
		{"postgres: checkpointer", "", Title{Role: RoleCheckpointer}},
		{"postgres: checkpointer process   ", "", Title{Role: RoleCheckpointer, Detail: "process"}},
		{"postgres: writer process   ", "", Title{Role: RoleBgWriter}},
		{"postgres: wal writer process   ", "", Title{Role: RoleWalWriter, Detail: "process"}},
		{"postgres: 15/main: background writer ", "15/main", Title{Role: RoleBgWriter}},
		{"postgres: 15/main: logical replication launcher ", "", Title{Role: RoleLRLauncher}},
		{"postgres: logical replication apply worker for subscription 16390", "", Title{Role: RoleLRWorker, Detail: "apply worker for subscription 16390"}},
		{"postgres: autovacuum worker bench", "", Title{Role: RoleAVWorker, Detail: "bench"}},
		{"postgres: 15/main: parallel worker for PID 4242 ", "", Title{Role: RoleParallel, Detail: "for PID 4242"}},
		{"postgres: walsender repl 10.0.0.2(40112) streaming 0/3000148", "", Title{Role: RoleWalSender, Detail: "repl 10.0.0.2(40112) streaming 0/3000148"}},
		{"postgres: 15/main: app shop [local] idle", "", Title{Role: RoleClient, User: "app", Database: "shop", Client: "[local]", State: "idle"}},
		{"postgres: app shop 10.1.2.3(51234) idle in transaction", "", Title{Role: RoleClient, User: "app", Database: "shop", Client: "10.1.2.3(51234)", State: "idle in transaction"}},
		{"postgres: app shop ::1(5000) SELECT", "", Title{Role: RoleClient, User: "app", Database: "shop", Client: "::1(5000)", State: "SELECT"}},
		{"postgres: my cluster: app shop [local] UPDATE waiting", "my cluster", Title{Role: RoleClient, User: "app", Database: "shop", Client: "[local]", State: "UPDATE waiting"}},
		{"postgres: TimescaleDB Background Worker Launcher", "", Title{Role: RoleBgWorker, Detail: "TimescaleDB Background Worker Launcher"}},
		{"postgres: pg_cron launcher", "", Title{Role: RoleBgWorker, Detail: "pg_cron launcher"}},
		{"postgres: io worker 0", "", Title{Role: RoleIOWorker, Detail: "0"}},
		{"/usr/lib/postgresql/15/bin/postgres -D /data", "", Title{Role: RoleUnknown}},
		{"", "", Title{Role: RoleUnknown}},
	}
	for _, tc := range tests {
		if got := ParseTitle(tc.title, tc.cluster); !cmp.Equal(got, tc.want) {
			t.Errorf("ParseTitle(%q, %q) = %+v, want %+v", tc.title, tc.cluster, got, tc.want)
		}
	}
}

func TestRoleFromBackendType(t *testing.T) {
	for bt, want := range map[string]Role{"client backend": RoleClient, "checkpointer": RoleCheckpointer,
		"logical replication tablesync worker": RoleLRWorker, "pg_cron scheduler": RoleBgWorker, "walsummarizer": RoleWalSummary} {
		if got, _ := RoleFromBackendType(bt); got != want {
			t.Errorf("RoleFromBackendType(%q) = %q, want %q", bt, got, want)
		}
	}
}

func TestParseConf(t *testing.T) {
	in := `# comment
shared_buffers = 4GB            # min 128kB
work_mem='64MB'
max_connections 500
search_path = '"$user", public'
log_line_prefix = '%m [%p] it''s \'quoted\' '
  include_dir 'conf.d'
`
	got, err := parseConf(strings.NewReader(in), "postgresql.conf")
	if err != nil {
		t.Fatal(err)
	}
	want := []confEntry{
		{"shared_buffers", "4GB", 2}, {"work_mem", "64MB", 3}, {"max_connections", "500", 4},
		{"search_path", `"$user", public`, 5}, {"log_line_prefix", "%m [%p] it's 'quoted' ", 6},
		{"include_dir", "conf.d", 7},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("conf (-want +got):\n%s", d)
	}
	for _, bad := range []string{"x = 'open", "= 5", "shared_buffers = 4 GB", "work_mem ="} {
		if _, err := parseConf(strings.NewReader(bad), "bad.conf"); err == nil || !strings.Contains(err.Error(), "bad.conf line 1") {
			t.Errorf("parseConf(%q) error %v, want one naming the file and line", bad, err)
		}
	}
}

func TestReadConfFileIncludes(t *testing.T) {
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{
		"etc/pg/postgresql.conf":     "shared_buffers = 1GB\ninclude_dir = 'conf.d'\ninclude_if_exists 'missing.conf'\nwork_mem = 8MB\n",
		"etc/pg/conf.d/10-a.conf":    "shared_buffers = 2GB\n",
		"etc/pg/conf.d/20-b.conf":    "huge_pages = on\ninclude '../extra.conf'\n",
		"etc/pg/conf.d/.hidden.conf": "huge_pages = off\n",
		"etc/pg/extra.conf":          "max_connections = 300\n",
	})
	fs := linux.FS{Root: root}
	s := Settings{}
	if err := ReadConfFile(fs, "/etc/pg/postgresql.conf", FromConfigFile, s); err != nil {
		t.Fatal(err)
	}
	if b, _ := s.Bytes("shared_buffers"); b != 2<<30 || s.String("huge_pages") != "on" {
		t.Errorf("include_dir order or hidden file: shared_buffers %d huge_pages %q", b, s.String("huge_pages"))
	}
	if n, _ := s.Int("max_connections"); n != 300 || s["max_connections"].File != "/etc/pg/extra.conf:1" {
		t.Errorf("nested include: %+v", s["max_connections"])
	}
	treetest.Write(t, root, map[string]string{"etc/pg/loop.conf": "include 'loop.conf'\n"})
	if err := ReadConfFile(fs, "/etc/pg/loop.conf", FromConfigFile, Settings{}); err == nil || !strings.Contains(err.Error(), "an include cycle: /etc/pg/loop.conf includes /etc/pg/loop.conf") {
		t.Errorf("include loop: %v", err)
	}
}

func TestParsePIDFile(t *testing.T) {
	in := "2233\n/var/lib/postgresql/15/main\n1795382908\n5432\n/var/run/postgresql\n127.0.0.1\n  5432001         4\nready   \n"
	got, err := parsePIDFile(in)
	if err != nil {
		t.Fatal(err)
	}
	want := PIDFile{PID: 2233, DataDir: "/var/lib/postgresql/15/main", StartEpoch: 1795382908, Port: 5432,
		SocketDir: "/var/run/postgresql", ListenAddr: "127.0.0.1", ShmemKey: "5432001 4", Status: "ready"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pid file (-want +got):\n%s", d)
	}
	if p, err := parsePIDFile("77\n"); err != nil || p.PID != 77 {
		t.Errorf("short pid file: %+v %v", p, err)
	}
	if _, err := parsePIDFile("x\n"); err == nil {
		t.Error("non-numeric PID accepted")
	}
}

func TestParseCommandLine(t *testing.T) {
	args := splitOpts(`/usr/lib/postgresql/15/bin/postgres "-D" "/var/lib/postgresql/15/main" "-c" "config_file=/etc/postgresql/15/main/postgresql.conf" "--shared-buffers=2GB" "-N" "50"` + "\n")
	got := parseCommandLine(args)
	if got.DataDir != "/var/lib/postgresql/15/main" {
		t.Errorf("data dir %q", got.DataDir)
	}
	want := map[string]string{"config_file": "/etc/postgresql/15/main/postgresql.conf", "shared_buffers": "2GB", "max_connections": "50"}
	if d := cmp.Diff(want, got.Settings); d != "" {
		t.Errorf("settings (-want +got):\n%s", d)
	}
	if o := parseCommandLine([]string{"postgres", "-D/data", "-c"}); o.DataDir != "/data" {
		t.Errorf("-D/data: %+v", o)
	}
}

func TestSettingsAccessors(t *testing.T) {
	s := Defaults(15)
	if b, _ := s.Bytes("shared_buffers"); b != 128<<20 {
		t.Errorf("default shared_buffers %d", b)
	}
	if f, _ := s.Float("hash_mem_multiplier"); f != 2 {
		t.Errorf("PG15 hash_mem_multiplier %v", f)
	}
	if f, _ := Defaults(13).Float("hash_mem_multiplier"); f != 1 {
		t.Errorf("PG13 hash_mem_multiplier %v", f)
	}
	if _, ok := s.Bytes("autovacuum_work_mem"); ok {
		t.Error("autovacuum_work_mem=-1 has no byte value")
	}
	if v, ok := s.Bool("jit"); !v || !ok {
		t.Error("jit on")
	}
	s.set("jit", "of", FromConfigFile, "")
	if v, ok := s.Bool("jit"); v || !ok {
		t.Error("'of' is a prefix of off")
	}
	s.set("not_a_memory_setting_we_know", "1", FromConfigFile, "")
	if _, ok := s["not_a_memory_setting_we_know"]; ok {
		t.Error("unknown settings are kept")
	}
}

func TestPercentile(t *testing.T) {
	v := []uint64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	if Percentile(v, 50) != 5 || Percentile(v, 95) != 10 || Percentile(v, 10) != 1 || Percentile(nil, 50) != 0 {
		t.Errorf("percentiles %d %d %d", Percentile(v, 50), Percentile(v, 95), Percentile(v, 10))
	}
	if v[0] != 5 {
		t.Error("Percentile sorted its input")
	}
}

// An include_dir of more files than the budget's fan-out is refused,
// naming the directory; one file over the byte budget is refused naming it.
func TestReadConfFileFanOutAndBytes(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"etc/pg/postgresql.conf": "include_dir 'conf.d'\n", "etc/pg/big.conf": strings.Repeat("# x\n", 300)}
	for i := 0; i < 129; i++ {
		files[fmt.Sprintf("etc/pg/conf.d/%03d.conf", i)] = "work_mem = 4MB\n"
	}
	treetest.Write(t, root, files)
	fs := linux.FS{Root: root}
	err := ReadConfFile(fs, "/etc/pg/postgresql.conf", FromConfigFile, Settings{})
	if !errors.Is(err, confbudget.ErrOverBudget) || !strings.Contains(err.Error(), "/etc/pg/conf.d: refused: 129 files to include (include_dir), more than 128") {
		t.Errorf("129 files in include_dir: %v", err)
	}
	err = ReadConfFileBudget(fs, "/etc/pg/big.conf", FromConfigFile, Settings{}, confbudget.Budget{FileBytes: 1000})
	if !errors.Is(err, confbudget.ErrOverBudget) || !strings.Contains(err.Error(), "/etc/pg/big.conf: refused: more than 1000 bytes") {
		t.Errorf("a 1200-byte file, budget 1000: %v", err)
	}
}

// splitOpts splits postmaster.opts: the binary and its arguments, each in
// double quotes ("/usr/lib/postgresql/15/bin/postgres" "-D" "/var/lib/...").
func splitOpts(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, have := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"':
			inQuote, have = !inQuote, true
		case !inQuote && (c == ' ' || c == '\t' || c == '\n'):
			if have {
				out = append(out, cur.String())
				cur.Reset()
				have = false
			}
		default:
			cur.WriteByte(c)
			have = true
		}
	}
	if have {
		out = append(out, cur.String())
	}
	return out
}
