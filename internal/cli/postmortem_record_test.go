package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/oomlog/memcgtest"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
)

// TestRootRecordPostmortemExample records the README's postmortem example
// from a real run: a PostgreSQL backend OOM-killed in a 128 MiB memory
// cgroup, then `dbmem postmortem --last 1` on this host. It runs only when
// DBMEM_RECORD_POSTMORTEM names the file to write the output to (as root).
func TestRootRecordPostmortemExample(t *testing.T) {
	out := os.Getenv("DBMEM_RECORD_POSTMORTEM")
	if out == "" || os.Geteuid() != 0 {
		t.Skip("set DBMEM_RECORD_POSTMORTEM=file (as root) to record the README's postmortem example")
	}
	g := memcgtest.New(t, 128<<20)
	c := pgtest.Start(t, map[string]string{"logging_collector": "on", "log_directory": "log",
		"log_filename": "postgresql-%Y-%m-%d.log", "log_line_prefix": "%m [%p] ", "lc_messages": "C", "work_mem": "2GB"})
	kill := pgtest.OOMKillBackend(t, g, c, "postmortem-docs")
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		files, _ := filepath.Glob(filepath.Join(c.DataDir, "log", "postgresql-*.log"))
		if len(files) > 0 {
			if b, _ := os.ReadFile(files[0]); strings.Count(string(b), "ready to accept connections") >= 2 {
				break
			}
		}
	}
	code, text, stderr := run(t, "postmortem", "--last", "1")
	if code != ExitOK || !strings.Contains(text, "killed   postgres pid ") {
		t.Fatalf("exit %d (victim pid %d): %s\n%s", code, kill.PID, stderr, text)
	}
	if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
