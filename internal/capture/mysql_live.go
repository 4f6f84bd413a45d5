package capture

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/mysql"
	"github.com/dbmem/dbmem/internal/redact"
)

// MySQLLiveRecorder wraps a mysql.LiveSource and keeps what it returned, by
// server PID, redacted: a captured tree also holds what each MySQL/MariaDB
// server said over SQL.
type MySQLLiveRecorder struct {
	Inner mysql.LiveSource
	got   answers[mysql.Live]
}

// Live asks the inner source and records its answer, or its failure.
func (r *MySQLLiveRecorder) Live(ctx context.Context, in *mysql.Instance) (mysql.Live, error) {
	l, err := r.Inner.Live(ctx, in)
	return r.got.record(in.PID, l, err)
}

// Files returns the recorded answers and failures keyed by their path in a
// tree (MySQLLivePath, MySQLLiveErrorPath), each answer redacted, and the
// count of secrets replaced in each file that had some.
func (r *MySQLLiveRecorder) Files() (files map[string][]byte, changed map[string]int, err error) {
	seen, failed := r.got.copies()
	files, changed = map[string][]byte{}, map[string]int{}
	for pid, l := range seen {
		red, n := RedactMySQLLive(l)
		b, err := json.MarshalIndent(red, "", "  ")
		if err != nil {
			return nil, nil, fmt.Errorf("encode the settings of mysqld %d: %w", pid, err)
		}
		files[MySQLLivePath(pid)] = b
		if n > 0 {
			changed[MySQLLivePath(pid)] = n
		}
	}
	for pid, why := range failed {
		files[MySQLLiveErrorPath(pid)] = []byte(why)
	}
	return files, changed, nil
}

// RedactMySQLLive replaces what may be a secret in a server's answer: the
// value of every variable whose name speaks of a password, a key or an
// authentication (wsrep_sst_auth, ...), and passwords inside other values
// (init_connect). It returns a copy and the count replaced.
func RedactMySQLLive(l mysql.Live) (mysql.Live, int) {
	vars := make(map[string]string, len(l.Variables))
	n := 0
	for k, v := range l.Variables {
		switch {
		case v != "" && secretVariable(k):
			vars[k] = redact.Redacted
			n++
		default:
			var c int
			vars[k], c = redact.Secrets(v)
			n += c
		}
	}
	l.Variables = vars
	return l, n
}

// secretVariable: server variables that hold a credential rather than a
// setting (wsrep_sst_auth, file_key_management_filekey, ...).
func secretVariable(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "secret", "filekey"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return strings.HasSuffix(n, "_auth")
}

// MySQLLivePath is where the answer of a MySQL/MariaDB server lives in a
// tree: "live/mysql/<pid>.json".
func MySQLLivePath(pid int) string { return "live/mysql/" + strconv.Itoa(pid) + ".json" }

// MySQLLiveErrorPath is where the failure to ask it is kept.
func MySQLLiveErrorPath(pid int) string { return "live/mysql/" + strconv.Itoa(pid) + ".error" }

// TreeMySQLLive answers from a tree's live/mysql/ directory: offline, what
// the server said when the tree was captured.
type TreeMySQLLive struct {
	Dir string
	// Read reads a file of the tree (nil: os.ReadFile); a bundle held in
	// memory reads its members.
	Read func(path string) ([]byte, error)
}

// Live returns the recorded answer for the server's PID.
func (t TreeMySQLLive) Live(_ context.Context, in *mysql.Instance) (mysql.Live, error) {
	return readAnswer[mysql.Live](t.Read, t.Dir, MySQLLivePath(in.PID), MySQLLiveErrorPath(in.PID), "server")
}
