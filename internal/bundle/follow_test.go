package bundle

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/pgcluster/pgtest"
	"github.com/dbmem/dbmem/internal/postgres"
)

// TestCaptureFollowsNoPathTheAccountControls: the database account (as any
// superuser of the cluster can through ALTER SYSTEM or COPY TO) plants, in
// what it owns, a log file that is a link to a root-only file and an
// include_if_exists of another root-only file. capture reads neither: the
// bundle holds no byte of them, and says why.
func TestCaptureFollowsNoPathTheAccountControls(t *testing.T) {
	c := pgtest.Start(t, map[string]string{"logging_collector": "on", "log_directory": "log",
		"log_filename": "postgresql-%Y-%m-%d.log", "lc_messages": "C"})
	acct, err := linux.ReadAccount(linux.DefaultFS(), c.PID)
	if err != nil {
		t.Fatal(err)
	}
	if acct.UID == 0 {
		t.Skip("the test cluster runs as root: nothing to refuse")
	}
	secretDir, err := os.MkdirTemp("", "dbmem-secrets-") // searchable by all: the files' own modes refuse
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(secretDir) })
	os.Chmod(secretDir, 0o755)
	logSecret := plantSecret(t, secretDir, "log-secret", "root-only-log-marker-7f3a")
	confSecret := plantSecret(t, secretDir, "conf-secret", "shared_buffers = '1GB' # root-only-conf-marker-9c1e")
	link := filepath.Join(c.DataDir, "log", "postgresql-2099-12-31.log")
	if err := os.Symlink(logSecret, link); err != nil {
		t.Fatal(err)
	}
	os.Lchown(link, int(acct.UID), int(acct.GIDs[0]))
	os.Chtimes(logSecret, time.Now().Add(time.Hour), time.Now().Add(time.Hour)) // the newest "log"
	conf, err := os.OpenFile(filepath.Join(c.DataDir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	conf.WriteString("include_if_exists '" + confSecret + "'\n") // read by dbmem, not by the running server
	conf.Close()

	p := filepath.Join(t.TempDir(), "b.tar.gz")
	o := CaptureOptions{FS: linux.DefaultFS(), Live: postgres.Connector{Options: postgres.ConnOptions{User: "postgres", Port: c.Port}}, Version: "test"}
	got, err := WriteFile(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	raw := bundleBytes(t, p)
	for _, m := range []string{"root-only-log-marker-7f3a", "root-only-conf-marker-9c1e"} {
		if bytes.Contains(raw, []byte(m)) {
			t.Errorf("the bundle holds %q, from a root-only file the database account pointed at", m)
		}
	}
	var why []string
	for _, l := range got.Manifest.Logs {
		if strings.Contains(l.Source, "postgresql-2099-12-31.log") {
			why = append(why, string(l.State)+": "+l.Why)
		}
	}
	if len(why) != 1 || !strings.Contains(why[0], "symbolic link owned by uid") {
		t.Errorf("the planted log should be listed as refused for its link: %q", why)
	}
	in := instanceOf(t, got.Snapshot, c.PID)
	gaps := ""
	for _, g := range in.Gaps {
		gaps += g.String() + "\n"
	}
	if !strings.Contains(gaps, "not readable by the database account") {
		t.Errorf("the refused include is not among the instance's gaps:\n%s", gaps)
	}
}

// plantSecret writes a root-only file (0600, root:root).
func plantSecret(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(p, 0, 0)
	return p
}
