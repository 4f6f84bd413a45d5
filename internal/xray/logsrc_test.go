package xray

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
	"github.com/dbmem/dbmem/internal/treetest"
)

// fakeHost is a /proc and / under a temporary directory with postmaster
// 100 whose stderr (fd 2) links to stderr, and a data directory /data
// holding current_logfiles when given.
func fakeHost(t *testing.T, stderr, currentLogfiles string) (linux.FS, *postgres.Instance) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"proc/100/stat": "100 (postgres) S 1"}
	if currentLogfiles != "" {
		files["root/data/current_logfiles"] = currentLogfiles
	}
	treetest.Write(t, dir, files)
	if stderr != "" {
		os.MkdirAll(filepath.Join(dir, "proc/100/fd"), 0o755)
		if err := os.Symlink(stderr, filepath.Join(dir, "proc/100/fd/2")); err != nil {
			t.Fatal(err)
		}
	}
	fs := linux.FS{Proc: filepath.Join(dir, "proc"), Sys: filepath.Join(dir, "sys"), Root: filepath.Join(dir, "root")}
	return fs, &postgres.Instance{PostmasterPID: 100, DataDir: "/data"}
}

func TestLocate(t *testing.T) {
	cases := []struct {
		name, stderr, current string
		settings              map[string]string
		path, format, why     string
	}{
		{"pg_ctl -l file", "/var/log/pg.log", "", map[string]string{}, "/var/log/pg.log", "stderr", ""},
		{"journald", "socket:[1234]", "", map[string]string{"log_destination": "stderr"}, "", "", "journald"},
		{"container", "pipe:[99]", "", map[string]string{}, "", "", "a pipe"},
		{"/dev/null", "/dev/null", "", map[string]string{}, "", "", "the dump is lost"},
		{"deleted", "/var/log/pg.log (deleted)", "", map[string]string{}, "", "", "was deleted"},
		{"collector csvlog", "", "stderr log/postgresql.log\ncsvlog log/postgresql.csv\n",
			map[string]string{"logging_collector": "on", "log_destination": "stderr,csvlog"}, "/data/log/postgresql.csv", "csvlog", ""},
		{"collector jsonlog, absolute", "", "jsonlog /var/log/pg/postgresql.json\n",
			map[string]string{"logging_collector": "on", "log_destination": "jsonlog"}, "/var/log/pg/postgresql.json", "jsonlog", ""},
		{"collector, no current_logfiles", "", "", map[string]string{"logging_collector": "on"}, "", "", "current_logfiles cannot be read"},
		{"syslog", "", "", map[string]string{"log_destination": "syslog", "syslog_ident": "pg15"}, "", "", "syslog (ident \"pg15\""},
		{"eventlog", "", "", map[string]string{"log_destination": "eventlog"}, "", "", "Windows event log"},
		{"csvlog without collector", "", "", map[string]string{"log_destination": "csvlog"}, "", "", "needs logging_collector = on"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs, in := fakeHost(t, c.stderr, c.current)
			src := Locate(fs, in, c.settings)
			if src.Path != c.path || src.Format != c.format || c.why != "" && !strings.Contains(src.Why, c.why) {
				t.Errorf("Locate = %+v, want path %q format %q why ~%q", src, c.path, c.format, c.why)
			}
			if c.why != "" && src.How == "" && c.name != "deleted" && c.name != "collector, no current_logfiles" {
				t.Errorf("no way to get the dump: %+v", src)
			}
		})
	}
}

// A rotation (a new file where the old one was, or current_logfiles
// naming a new file) and a truncation while dbmem waits: the text read
// continues in the new file, and each is said.
func TestFollowRotationAndTruncation(t *testing.T) {
	dir := t.TempDir()
	fs := linux.FS{Proc: "/proc", Sys: "/sys", Root: "/"}
	old := filepath.Join(dir, "pg.log")
	write(t, old, "before\n")
	src := Source{Path: old, Format: "stderr"}
	next := src
	fl, err := Follow(fs, src, func() Source { return next }, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer fl.Close()
	appendTo(t, old, "one\n")
	mustPoll(t, fl)
	if string(fl.Text()) != "one\n" {
		t.Fatalf("text %q: the log is read from where it was when followed", fl.Text())
	}
	// logrotate without copytruncate: renamed, a new file in its place.
	appendTo(t, old, "two\n")
	if err := os.Rename(old, old+".1"); err != nil {
		t.Fatal(err)
	}
	write(t, old, "three\n")
	mustPoll(t, fl)
	if string(fl.Text()) != "one\ntwo\nthree\n" || len(fl.Notes) != 1 || !strings.Contains(fl.Notes[0], "rotated") {
		t.Fatalf("after a rename: text %q notes %q", fl.Text(), fl.Notes)
	}
	// copytruncate.
	if err := os.Truncate(old, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(t, old, "four\n")
	mustPoll(t, fl)
	if !strings.HasSuffix(string(fl.Text()), "four\n") || len(fl.Notes) != 2 || !strings.Contains(fl.Notes[1], "truncated") {
		t.Fatalf("after a truncation: text %q notes %q", fl.Text(), fl.Notes)
	}
	// The collector's current_logfiles names a new file.
	newer := filepath.Join(dir, "pg-2.log")
	write(t, newer, "five\n")
	next = Source{Path: newer, Format: "stderr"}
	mustPoll(t, fl)
	if !strings.HasSuffix(string(fl.Text()), "four\nfive\n") || len(fl.Notes) != 3 {
		t.Fatalf("after current_logfiles moved: text %q notes %q", fl.Text(), fl.Notes)
	}
	// Bounded: a log growing past the bound is an error, not a memory hog.
	fl.max = fl.read + 4
	appendTo(t, newer, "0123456789\n")
	if _, err := fl.Poll(); err == nil || !strings.Contains(err.Error(), "grew by more than") {
		t.Errorf("over the bound: %v", err)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendTo(t *testing.T, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func mustPoll(t *testing.T, fl *Follower) {
	t.Helper()
	if _, err := fl.Poll(); err != nil {
		t.Fatal(err)
	}
}
