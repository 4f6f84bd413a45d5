package postmortem

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/treetest"
)

func TestStrftimeRegexp(t *testing.T) {
	cases := []struct {
		pattern string
		match   []string
		nomatch []string
	}{
		{"postgresql-%Y-%m-%d_%H%M%S.log", []string{"postgresql-2026-11-22_215700.log"}, []string{"postgresql-2026-11-22_215700.csv", "postgresql-x.log"}},
		{"postgresql-%a.log", []string{"postgresql-Sun.log"}, []string{"postgresql-7.log"}},
		{"pg.%%.%j.log", []string{"pg.%.326.log"}, []string{"pg.x.326.log"}},
		{"server.log", []string{"server.log"}, []string{"server.log.1", "serverXlog"}},
	}
	for _, c := range cases {
		re, err := strftimeRegexp(c.pattern)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.match {
			if !re.MatchString(m) {
				t.Errorf("%s does not match %s", c.pattern, m)
			}
		}
		for _, m := range c.nomatch {
			if re.MatchString(m) {
				t.Errorf("%s matches %s", c.pattern, m)
			}
		}
	}
	if logFileFor("postgresql-%a.log", "csvlog") != "postgresql-%a.csv" || logFileFor("pg-%a", "jsonlog") != "pg-%a.json" {
		t.Error("csvlog/jsonlog file names")
	}
}

func pgInstance(dataDir string, kv map[string]string) *postgres.Instance {
	s := postgres.Settings{}
	for k, v := range kv {
		s[k] = postgres.Setting{Value: v}
	}
	return &postgres.Instance{PostmasterPID: 10, DataDir: dataDir, Port: 5432, Major: 15, Settings: s}
}

func TestPlanPostgres(t *testing.T) {
	p := planPostgres(pgInstance("/data", map[string]string{"logging_collector": "on", "log_directory": "log",
		"log_filename": "postgresql-%a.log", "log_destination": "csvlog,stderr", "log_timezone": "Europe/Paris"}))
	if p.Dir != "/data/log" || !p.Match.MatchString("postgresql-Mon.log") || p.Zone != "Europe/Paris" || p.Why != "" {
		t.Errorf("collector plan = %+v", p)
	}
	p = planPostgres(pgInstance("/data", map[string]string{"logging_collector": "on", "log_directory": "/var/log/pg", "log_destination": "jsonlog"}))
	if p.Dir != "/var/log/pg" || !p.Match.MatchString("postgresql-2026-11-22_000000.json") {
		t.Errorf("jsonlog plan = %+v", p)
	}
	p = planPostgres(pgInstance("/var/lib/postgresql/15/main", map[string]string{"logging_collector": "off"}))
	if !reflect.DeepEqual(p.Files, []string{"/var/log/postgresql/postgresql-15-main.log"}) || !p.Rotations {
		t.Errorf("Debian plan = %+v", p)
	}
	p = planPostgres(pgInstance("/srv/pg", map[string]string{"logging_collector": "off"}))
	if p.Why == "" || !strings.Contains(p.Why, "--db-log") {
		t.Errorf("pg_ctl -l plan = %+v", p)
	}
	p = planPostgres(pgInstance("/srv/pg", map[string]string{"logging_collector": "on", "log_destination": "syslog"}))
	if !strings.Contains(p.Why, "syslog") {
		t.Errorf("syslog plan = %+v", p)
	}
}

func TestPlanMySQL(t *testing.T) {
	in := &mysql.Instance{PID: 5, Flavor: mysql.MariaDB, DataDir: "/var/lib/mysql", Settings: mysql.Settings{"log_error": {Value: "err.log"}}}
	if p := planMySQL(in); !reflect.DeepEqual(p.Files, []string{"/var/lib/mysql/err.log"}) {
		t.Errorf("relative log_error: %+v", p)
	}
	in.Settings = mysql.Settings{}
	if p := planMySQL(in); !strings.Contains(p.Why, "stderr") {
		t.Errorf("no log_error: %+v", p)
	}
}

func TestRotationsAndYear(t *testing.T) {
	got := rotations("/var/log/kern.log", []string{"kern.log.2.gz", "kern.log", "kern.log.1", "kern.logx", "kern.log.10.gz", "messages"})
	want := []string{"/var/log/kern.log", "/var/log/kern.log.1", "/var/log/kern.log.2.gz", "/var/log/kern.log.10.gz"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rotations = %v", got)
	}
	jan := time.Date(2027, 1, 3, 0, 0, 0, 0, time.UTC)
	if y := syslogYear([]byte("Dec 31 23:59:01 db kernel: x\n"), jan); y != 2026 {
		t.Errorf("a December line in a file last written in January: year %d", y)
	}
	if y := syslogYear([]byte("Jan  2 00:00:01 db kernel: x\n"), jan); y != 2027 {
		t.Errorf("year %d", y)
	}
}

func TestReadTail(t *testing.T) {
	dir := t.TempDir()
	var text strings.Builder
	for i := 0; i < 1000; i++ {
		text.WriteString("line of the log number ")
		text.WriteString(strings.Repeat("x", i%7))
		text.WriteString("\n")
	}
	p := filepath.Join(dir, "kern.log")
	os.WriteFile(p, []byte(text.String()), 0o644)
	tl, err := readTail(context.Background(), openLog, p, 1000)
	if err != nil || !tl.truncated || tl.size != int64(text.Len()) || len(tl.data) > 1000 || !strings.HasPrefix(string(tl.data), "line of") {
		t.Fatalf("tail = %d bytes, truncated %v, size %d, %v", len(tl.data), tl.truncated, tl.size, err)
	}
	if !strings.HasSuffix(text.String(), string(tl.data)) {
		t.Error("the tail is not the end of the file")
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(text.String()))
	zw.Close()
	os.WriteFile(p+".2.gz", gz.Bytes(), 0o644)
	tg, err := readTail(context.Background(), openLog, p+".2.gz", 1000)
	if err != nil || !bytes.Equal(tg.data, tl.data) || tg.size != tl.size {
		t.Errorf("gz tail differs: %d bytes %v", len(tg.data), err)
	}
}

// Gather under a root (a copied host): kern.log and its rotations, the
// Debian PostgreSQL log, no commands run since the roots are not live.
func TestGatherUnderRoot(t *testing.T) {
	root := t.TempDir()
	kern := fileText(t, checkpointer)
	treetest.Write(t, root, map[string]string{
		"var/log/kern.log.1":                        string(kern),
		"var/log/kern.log":                          "2026-11-23T00:00:00.000000+01:00 db12 kernel: nothing\n",
		"var/log/postgresql/postgresql-15-main.log": string(fileText(t, pgServerLog)),
	})
	fs := linux.FS{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Root: root}
	ran := false
	logs := Gather(context.Background(), GatherOptions{FS: fs, Zone: "UTC", Postgres: []*postgres.Instance{pgInstance("/var/lib/postgresql/15/main", nil)},
		Run: func(context.Context, string, ...string) ([]byte, error) { ran = true; return nil, nil }})
	if ran {
		t.Error("commands ran on a non-live root")
	}
	var srcs []string
	for _, l := range logs {
		srcs = append(srcs, l.Source+":"+string(l.State))
	}
	want := []string{"/var/log/kern.log:read", "/var/log/kern.log.1:read", "/var/log/messages:missing", "/var/log/syslog:missing",
		"/var/log/daemon.log:missing", "/var/log/postgresql/postgresql-15-main.log:read"}
	if !reflect.DeepEqual(srcs, want) {
		t.Errorf("sources = %v, want %v", srcs, want)
	}
	r := Analyze(Input{Logs: logs, Zone: "UTC"})
	if r.Kills != 1 || len(r.Crashes) != 1 {
		t.Errorf("kills %d, crashes without kill %d", r.Kills, len(r.Crashes))
	}
}

func TestCommandSources(t *testing.T) {
	notFound := func(context.Context, string, ...string) ([]byte, error) {
		return nil, &exec.Error{Name: "journalctl", Err: exec.ErrNotFound}
	}
	if l := journalLog(context.Background(), notFound); l.State != StateMissing {
		t.Errorf("journal without journalctl: %+v", l)
	}
	empty := func(context.Context, string, ...string) ([]byte, error) { return nil, nil }
	if l := journalLog(context.Background(), empty); l.State != StateEmpty {
		t.Errorf("empty journal: %+v", l)
	}
	var calls []string
	boot := time.Date(2026, 11, 22, 21, 0, 0, 0, time.UTC)
	fallback := func(_ context.Context, name string, args ...string) ([]byte, error) {
		calls = append(calls, name+" "+strings.Join(args, " "))
		if len(args) > 0 {
			return nil, errors.New("dmesg: unknown option")
		}
		return []byte("[  1.0] x\n"), nil
	}
	l := dmesgLog(context.Background(), fallback, boot)
	if l.State != StateRead || l.Source != "dmesg" || !l.BootTime.Equal(boot) || len(calls) != 2 {
		t.Errorf("dmesg fallback: %+v after %v", l, calls)
	}
	denied := func(context.Context, string, ...string) ([]byte, error) {
		return nil, errors.New("dmesg: read kernel buffer failed: Operation not permitted")
	}
	if l := dmesgLog(context.Background(), denied, boot); l.State != StateFailed || !strings.Contains(l.Why, "dmesg_restrict") {
		t.Errorf("dmesg denied: %+v", l)
	}
}

// On a live host the journal's unit messages are asked for as JSON
// (bounded, with a deadline) and read as text.
func TestUnitJournal(t *testing.T) {
	var args []string
	run := func(_ context.Context, name string, a ...string) ([]byte, error) {
		args = a
		return []byte(`{"__REALTIME_TIMESTAMP":"1732310941123456","_HOSTNAME":"db1","SYSLOG_IDENTIFIER":"systemd","_PID":"1","MESSAGE":"postgresql.service: Failed with result 'oom-kill'."}` + "\n"), nil
	}
	l := unitJournalLog(context.Background(), run)
	if l.State != StateRead || l.Kind != KindService || !strings.Contains(strings.Join(args, " "), "-n 50000") {
		t.Fatalf("unit journal %+v (args %v)", l, args)
	}
	r := Analyze(Input{Logs: []Log{l}, Zone: "UTC"})
	if len(r.Services) != 1 || r.Services[0].Fate != FateStopped || r.Services[0].Time == nil {
		t.Fatalf("services %+v", r.Services)
	}
}
