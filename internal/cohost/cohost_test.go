package cohost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/treetest"
)

// TestDetect: the processes of the archetypes and of this machine, as
// /proc shows them (Redis and Oracle rewrite their titles).
func TestDetect(t *testing.T) {
	procs := []Proc{
		{1, "systemd", []string{"/sbin/init"}},
		{1020, "redis-server", []string{"/usr/bin/redis-server 127.0.0.1:6379"}},
		{2200, "java", []string{"/usr/share/elasticsearch/jdk/bin/java", "-Xms16g", "-Xmx16g", "-cp", "/usr/share/elasticsearch/lib/*", "org.elasticsearch.bootstrap.Elasticsearch"}},
		{2600, "beam.smp", []string{"/usr/lib/riak/erts-5.10.3/bin/beam.smp", "-scl", "false", "--", "-root", "/usr/lib/riak"}},
		{900, "beam.smp", []string{"/usr/lib/erlang/erts-13.1.5/bin/beam.smp", "-W", "w", "--", "-root", "/usr/lib/erlang", "-progname", "erl", "--", "-home", "/var/lib/rabbitmq", "--", "-s", "rabbit", "boot"}},
		{3001, "ora_pmon_orcl", []string{"ora_pmon_orcl"}},
		{3002, "ora_smon_orcl", []string{"ora_smon_orcl"}},
		{3100, "oracle", []string{"oracleorcl (LOCAL=NO)"}},
		{2400, "mongod", []string{"/usr/bin/mongod", "--config", "/etc/mongod.conf"}},
		{912, "kubelet", []string{"/usr/bin/kubelet", "--config=/var/lib/kubelet/config.yaml"}},
		{5000, "postgres", []string{"postgres: 15/main: checkpointer"}},
		{5001, "bash", []string{"bash", "-c", "redis-server java beam.smp"}}, // names in arguments are not programs
	}
	var got []string
	for _, s := range Detect(procs) {
		got = append(got, s.String()+" "+string(s.Kind))
	}
	want := []string{
		"beam.smp (rabbitmq) (pid 900) erlang", "beam.smp (riak) (pid 2600) erlang",
		"java (org.elasticsearch.bootstrap.Elasticsearch) (pid 2200) jvm", "kubelet (pid 912) kubelet",
		"mongod (pid 2400) mongodb", "oracle (SID orcl) (pid 3001) oracle", "redis-server (pid 1020) redis",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("detected:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, s := range Detect(procs) {
		if s.Kind == Oracle && len(s.PIDs) != 3 {
			t.Errorf("Oracle instance orcl: pids %v, want its background and server processes", s.PIDs)
		}
	}
}

func TestParseMongoVersion(t *testing.T) {
	for _, c := range []struct {
		log          string
		major, minor int
		ok           bool
	}{
		{`{"t":{"$date":"2026-11-20T08:12:01.114+00:00"},"s":"I",  "c":"CONTROL",  "id":23403,   "ctx":"initandlisten","msg":"Build Info","attr":{"buildInfo":{"version":"8.0.4","gitVersion":"bc35ab"}}}`, 8, 0, true},
		{"{\"msg\":\"Build Info\",\"attr\":{\"buildInfo\":{\"version\":\"6.0.12\"}}}\n{\"msg\":\"Build Info\",\"attr\":{\"buildInfo\":{\"version\":\"7.0.2\"}}}\n", 7, 0, true},
		{"2019-11-02T10:00:00.000+0000 I CONTROL  [initandlisten] db version v4.2.1\n", 4, 2, true},
		{`{"msg":"Connection accepted","attr":{"version":"9.9"}}`, 0, 0, false},
		{"", 0, 0, false},
	} {
		major, minor, ok := ParseMongoVersion([]byte(c.log))
		if major != c.major || minor != c.minor || ok != c.ok {
			t.Errorf("%.60q: %d.%d %v, want %d.%d %v", c.log, major, minor, ok, c.major, c.minor, c.ok)
		}
	}
}

func TestConfLogPath(t *testing.T) {
	conf := "# mongod.conf\nstorage:\n  dbPath: /var/lib/mongodb\n  path: /not/this\nsystemLog:\n  destination: file\n  logAppend: true\n  path: \"/srv/log/mongod.log\" # moved\nnet:\n  port: 27017\n"
	if got := ConfLogPath([]byte(conf)); got != "/srv/log/mongod.log" {
		t.Errorf("systemLog.path %q", got)
	}
	if got := ConfLogPath([]byte("storage:\n  path: /x\n")); got != "" {
		t.Errorf("no systemLog: %q", got)
	}
}

// TestReadMongoVersion reads a tree: the version from the log the
// configuration names; a symbolic link in place of the log is refused.
func TestReadMongoVersion(t *testing.T) {
	root := t.TempDir()
	treetest.Write(t, root, map[string]string{
		"proc/2400/stat":           "2400 (mongod) S 1 2400 2400 0 -1 4194560 1 0 0 0 1 1 0 0 20 0 80 0 100 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		"proc/2400/cmdline":        "/usr/bin/mongod\x00--config\x00/etc/mongod.conf\x00",
		"root/etc/mongod.conf":     "systemLog:\n  path: /srv/mongod.log\n",
		"root/srv/mongod.log":      strings.Repeat("x", 3<<20) + "\n{\"msg\":\"Build Info\",\"attr\":{\"buildInfo\":{\"version\":\"8.0.4\"}}}\n",
		"root/var/log/secret.conf": "{\"msg\":\"Build Info\",\"attr\":{\"buildInfo\":{\"version\":\"9.9.9\"}}}\n",
	})
	fs := linux.FS{Proc: filepath.Join(root, "proc"), Sys: filepath.Join(root, "sys"), Root: filepath.Join(root, "root")}
	sw, gaps := Read(fs)
	if len(sw) != 1 || sw[0].Version() != "8.0" || !strings.Contains(sw[0].VersionFrom, "/srv/mongod.log") || len(gaps) != 0 {
		t.Fatalf("read %+v, gaps %v", sw, gaps)
	}
	if err := os.Remove(filepath.Join(root, "root/srv/mongod.log")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "root/var/log/secret.conf"), filepath.Join(root, "root/srv/mongod.log")); err != nil {
		t.Fatal(err)
	}
	sw, gaps = Read(fs)
	if len(sw) != 1 || sw[0].Major != 0 || len(gaps) != 1 || !strings.Contains(gaps[0].Why, "/srv/mongod.log") {
		t.Errorf("through a symbolic link: %+v, gaps %v", sw, gaps)
	}
}

func FuzzParseMongo(f *testing.F) {
	f.Add([]byte(`{"msg":"Build Info","attr":{"buildInfo":{"version":"8.0.4"}}}`))
	f.Add([]byte("systemLog:\n  path: /x\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseMongoVersion(b)
		ConfLogPath(b)
	})
}
