package mysql

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{
		"134217728": 134217728, "1G": 1 << 30, "1g": 1 << 30, "16M": 16 << 20, "256K": 256 << 10,
		"2T": 2 << 40, " 8M ": 8 << 20, "1.5G": 3 << 29, "0": 0,
	} {
		if got, err := ParseBytes(in); err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "G", "12X", "-1", "99999999999999999999", "16000000E"} {
		if v, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", bad, v)
		}
	}
}

func TestParseBool(t *testing.T) {
	for in, want := range map[string]bool{"ON": true, "on": true, "1": true, "TRUE": true, "OFF": false, "0": false, "no": false} {
		if got, err := ParseBool(in); err != nil || got != want {
			t.Errorf("ParseBool(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseBool("maybe"); err == nil {
		t.Error("ParseBool(maybe) accepted")
	}
}

const myCnf = `# MariaDB-style option file
[client-server]
socket = /run/mysqld/mysqld.sock
[mysqld]
innodb-buffer-pool-size = 2G   # the cache
key_buffer_size="64M"
large-pages
skip-performance-schema
loose-innodb_log_buffer_size = 32M
; a comment
[mysqldump]
max_allowed_packet = 1G
[mariadb-10.11]
max_connections = 300
!includedir conf.d
`

func TestParseConf(t *testing.T) {
	es, err := parseConf(strings.NewReader(myCnf))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 9 {
		t.Fatalf("got %d entries: %+v", len(es), es)
	}
	if e := es[1]; e.Group != "mysqld" || e.Key != "innodb_buffer_pool_size" || e.Value != "2G" {
		t.Errorf("entry 1 = %+v", e)
	}
	if e := es[2]; e.Value != "64M" || es[3].HasValue || es[3].Key != "large_pages" {
		t.Errorf("entries 2, 3 = %+v %+v", e, es[3])
	}
	if e := es[8]; e.IncludeDir != "conf.d" || e.Group != "mariadb-10.11" {
		t.Errorf("includedir = %+v", e)
	}
}

// Option files under a root: /etc/mysql/my.cnf includes conf.d/*.cnf
// (sorted), a later file overrides an earlier one, other groups are ignored.
func TestReadOptionFiles(t *testing.T) {
	root := t.TempDir()
	write := func(p, s string) {
		full := filepath.Join(root, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		os.WriteFile(full, []byte(s), 0o644)
	}
	write("etc/mysql/my.cnf", strings.ReplaceAll(myCnf, "!includedir conf.d", "!includedir /etc/mysql/conf.d"))
	write("etc/mysql/conf.d/50-server.cnf", "[server]\ninnodb_buffer_pool_size=3G\n")
	write("etc/mysql/conf.d/60-tuning.cnf", "[mysqld]\nmax_connections=500\n!include /etc/mysql/extra.cnf\n")
	write("etc/mysql/conf.d/README", "[mysqld]\nmax_connections=1\n")
	write("etc/mysql/extra.cnf", "[mariadbd]\nthread_stack=512K\n")
	fs := linux.FS{Root: root}
	cmd := parseCommandLine([]string{"/usr/sbin/mariadbd", "--sort-buffer-size=4M", "--skip-log-bin"})
	files, req := cmd.optionFiles()
	opts, read, gaps := readOptionFiles(fs, files, req, serverGroups(MariaDB, "10.11.19-MariaDB"))
	if len(gaps) != 0 || !reflect.DeepEqual(read, []string{"/etc/mysql/my.cnf", "/etc/mysql/conf.d/50-server.cnf", "/etc/mysql/conf.d/60-tuning.cnf", "/etc/mysql/extra.cnf"}) {
		t.Fatalf("read %v, gaps %v", read, gaps)
	}
	s := Defaults(MariaDB)
	applyOptions(s, opts, FromConfigFile)
	checks := map[string]string{"innodb_buffer_pool_size": "3G", "max_connections": "500", "large_pages": "ON",
		"performance_schema": "OFF", "innodb_log_buffer_size": "32M", "thread_stack": "512K", "key_buffer_size": "64M",
		"socket": "/run/mysqld/mysqld.sock", "max_allowed_packet": "16777216"}
	for k, want := range checks {
		if got := s[k].Value; got != want {
			t.Errorf("%s = %q (%+v), want %q", k, got, s[k], want)
		}
	}
	if s["max_connections"].File != "/etc/mysql/conf.d/60-tuning.cnf" {
		t.Errorf("max_connections from %q", s["max_connections"].File)
	}
}

func TestCommandLine(t *testing.T) {
	c := parseCommandLine([]string{"/usr/sbin/mysqld", "--defaults-file=/srv/my.cnf", "--innodb_buffer_pool_size=8G", "--large-pages", "positional"})
	files, req := c.optionFiles()
	if !reflect.DeepEqual(files, []string{"/srv/my.cnf"}) || !req["/srv/my.cnf"] {
		t.Errorf("files %v %v", files, req)
	}
	if c.Options["innodb_buffer_pool_size"] != "8G" || c.HasValue["large_pages"] || len(c.Order) != 3 {
		t.Errorf("options %+v", c)
	}
	if f, _ := parseCommandLine([]string{"mysqld", "--no-defaults"}).optionFiles(); len(f) != 0 {
		t.Errorf("--no-defaults read %v", f)
	}
	extra, _ := parseCommandLine([]string{"mysqld", "--defaults-extra-file=/x.cnf"}).optionFiles()
	if !reflect.DeepEqual(extra, []string{"/etc/my.cnf", "/etc/mysql/my.cnf", "/x.cnf"}) {
		t.Errorf("extra file: %v", extra)
	}
}

func TestSetVersion(t *testing.T) {
	in := &Instance{Flavor: MySQL}
	in.setVersion("10.11.19-MariaDB-0+deb12u1")
	if in.Flavor != MariaDB || in.Major != 10 || in.Minor != 11 || in.Patch != 19 || !in.AtLeast(10, 5, 0) || in.AtLeast(10, 11, 20) {
		t.Errorf("%+v", in)
	}
	my := &Instance{Flavor: MySQL}
	my.setVersion("8.0.36")
	if my.Flavor != MySQL || my.Major != 8 || majorMinor(my.Version) != "8.0" {
		t.Errorf("%+v", my)
	}
}

func FuzzParseConf(f *testing.F) {
	f.Add(myCnf)
	f.Add("[mysqld\nkey='unterminated\n!include\n=value\n")
	f.Fuzz(func(t *testing.T, s string) {
		es, _ := parseConf(strings.NewReader(s))
		for _, e := range es {
			if e.Key != "" && strings.ContainsAny(e.Key, "-\n") {
				t.Errorf("key %q not normalised", e.Key)
			}
		}
	})
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"1G", "134217728", "1.5M", "E", "9E"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ParseBytes(s)
		ParseBool(s)
		parseCommandLine(strings.Fields(s))
	})
}
