package hostchange

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJournalRoundTrip writes each kind of entry and reads it back; the
// last DropKernel removes the file.
func TestJournalRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "lab.journal")
	j, err := NewJournal(path, "test")
	if err != nil {
		t.Fatal(err)
	}
	pool := Sysctl("vm.nr_hugepages")
	c := &Cluster{Dir: "/tmp/dbmem-pg-1", Dev: 1, Ino: 2, UID: 101, Bin: "/usr/lib/postgresql/15/bin", Postmaster: &Process{PID: 7, StartTicks: 8, Exe: "/usr/lib/postgresql/15/bin/postgres"}}
	for _, e := range []Entry{{Cluster: c}, {Cgroup: &Cgroup{Dir: "/sys/fs/cgroup/dbmem-lab-oom-1", Parent: "/sys/fs/cgroup"}}, {Kernel: &Kernel{Setting: pool, Before: "0", Set: "536"}}} {
		if err := j.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := LoadJournal(path)
	if err != nil || !ok || len(got.Entries) != 3 || *got.Entries[0].Cluster.Postmaster != *c.Postmaster || got.Entries[2].Kernel.Set != "536" || got.Owner.PID != os.Getpid() {
		t.Fatalf("read back %+v, %v", got, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("journal mode %v, want 0600", st.Mode().Perm())
	}
	got.Entries = got.Entries[2:]
	if err := got.DropKernel(pool); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("an empty journal is kept: %v", err)
	}
}

// TestLoadJournalRefusesOthers: the old lab and kerneltest formats, an
// unknown field, another schema and trailing data are not journals.
func TestLoadJournalRefusesOthers(t *testing.T) {
	for name, text := range map[string]string{
		"old lab":       `{"pid":999999,"start_ticks":1,"changes":[{"path":"/etc/crontab","set":"x","before":"y"}]}`,
		"old kernel":    "/proc/sys/vm/swappiness\t10\n",
		"unknown field": `{"schema":"dbmem.hostjournal/v1","owner":{"pid":1},"entries":[{"kernel":{"target":"sysctl","name":"vm.swappiness","before":"1","path":"/etc/crontab"}}]}`,
		"schema":        `{"schema":"dbmem.hostjournal/v2","owner":{"pid":1},"entries":[]}`,
		"two values":    `{"schema":"dbmem.hostjournal/v1","owner":{"pid":1},"entries":[]} {}`,
	} {
		if _, err := parseJournal([]byte(text)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	path := filepath.Join(t.TempDir(), "big")
	os.WriteFile(path, []byte(`{"schema":"dbmem.hostjournal/v1","entries":[`+strings.Repeat(" ", MaxStateBytes)+`]}`), 0o600)
	if _, _, err := LoadJournal(path); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("a journal over %d bytes: %v", MaxStateBytes, err)
	}
}

func FuzzParseJournal(f *testing.F) {
	f.Add(`{"schema":"dbmem.hostjournal/v1","owner":{"pid":1,"start_ticks":2,"program":"x"},"entries":[{"kernel":{"target":"sysctl","name":"vm.nr_hugepages","before":"0","set":"9"}},{"cluster":{"dir":"/tmp/dbmem-pg-1","dev":1,"ino":2,"uid":3,"bin":"/b","postmaster":{"pid":4,"start_ticks":5}}},{"cgroup":{"dir":"/sys/fs/cgroup/dbmem-lab-oom-1","parent":"/sys/fs/cgroup"}}]}`)
	f.Add(`{"pid":1,"changes":[{"path":"p","before":"1","set":"2"}]}`)
	f.Fuzz(func(t *testing.T, s string) {
		j, err := parseJournal([]byte(s))
		if err == nil && j.Schema != JournalSchema {
			t.Errorf("accepted schema %q", j.Schema)
		}
	})
}

// TestLegacyNote names an old journal once, without reading it.
func TestLegacyNote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dbmem-lab.journal")
	if n := LegacyNote(path); n != "" {
		t.Errorf("no file: %q", n)
	}
	os.WriteFile(path, []byte("\x1b]0;PWN\x07"), 0o666)
	n := LegacyNote(path)
	if !strings.Contains(n, "ignored "+path) || !strings.Contains(n, "check by hand") || strings.Contains(n, "PWN") {
		t.Errorf("note: %q", n)
	}
	if again := LegacyNote(path); again != "" {
		t.Errorf("said twice: %q", again)
	}
}
