package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/redact"
)

type fixedMySQL struct {
	l   mysql.Live
	err error
}

func (f fixedMySQL) Live(context.Context, *mysql.Instance) (mysql.Live, error) { return f.l, f.err }

// TestMySQLLiveRoundTrip: what a server said is written redacted and read
// back by TreeMySQLLive; a failure is replayed as the same error.
func TestMySQLLiveRoundTrip(t *testing.T) {
	said := mysql.Live{Version: "10.11.19-MariaDB", As: "connected as root via /run/mysqld/mysqld.sock",
		Variables: map[string]string{"innodb_buffer_pool_size": "134217728", "key_buffer_size": "134217728",
			"wsrep_sst_auth": "sst:s3cret", "file_key_management_filekey": "FILE:/etc/mysql/key",
			"init_connect": "GRANT ALL ON *.* TO u IDENTIFIED BY 'x2'", "wsrep_sst_method": "rsync"}}
	ctx := context.Background()
	r := &MySQLLiveRecorder{Inner: fixedMySQL{l: said}}
	if _, err := r.Live(ctx, &mysql.Instance{PID: 10}); err != nil {
		t.Fatal(err)
	}
	failing := &MySQLLiveRecorder{Inner: fixedMySQL{err: errors.New("1045 Access denied for user 'root'@'localhost'")}}
	failing.Live(ctx, &mysql.Instance{PID: 11})
	dir := t.TempDir()
	for _, rec := range []*MySQLLiveRecorder{r, failing} {
		files, _, err := rec.Files()
		if err != nil {
			t.Fatal(err)
		}
		for p, b := range files {
			os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	_, changed, _ := r.Files()
	if changed[MySQLLivePath(10)] != 3 {
		t.Errorf("secrets replaced: %v, want 3", changed)
	}
	got, err := TreeMySQLLive{Dir: dir}.Live(ctx, &mysql.Instance{PID: 10})
	if err != nil {
		t.Fatal(err)
	}
	v := got.Variables
	if v["innodb_buffer_pool_size"] != "134217728" || v["key_buffer_size"] != "134217728" || v["wsrep_sst_method"] != "rsync" || got.As != said.As {
		t.Errorf("settings changed by redaction: %v", v)
	}
	if v["wsrep_sst_auth"] != redact.Redacted || v["file_key_management_filekey"] != redact.Redacted ||
		v["init_connect"] != "GRANT ALL ON *.* TO u IDENTIFIED BY '"+redact.Redacted+"'" {
		t.Errorf("secrets kept: %q %q %q", v["wsrep_sst_auth"], v["file_key_management_filekey"], v["init_connect"])
	}
	if _, err := (TreeMySQLLive{Dir: dir}).Live(ctx, &mysql.Instance{PID: 11}); err == nil || err.Error() != "1045 Access denied for user 'root'@'localhost'" {
		t.Errorf("replayed failure: %v", err)
	}
}
