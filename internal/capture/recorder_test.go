package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/postgres"
)

var roots = linux.FS{Proc: "/proc", Sys: "/sys", Root: "/"}

func TestRecorderFreezeAndChanges(t *testing.T) {
	r := NewRecorder()
	r.Dir("/proc", []string{"1", "2", "self"})
	r.File("/proc/1/stat", []byte("a"))
	r.File("/proc/1/stat", []byte("b")) // a reader reads it again: the later read counts
	r.Freeze()
	r.File("/proc/1/stat", []byte("c")) // after the snapshot: kept as the snapshot saw it
	r.File("/proc/3/status", []byte("new"))
	files, _ := r.Tree(roots)
	if string(files["proc/1/stat"]) != "b" || string(files["proc/3/status"]) != "new" {
		t.Errorf("files = %q", files)
	}
	if got := r.Changed(); !reflect.DeepEqual(got, []string{"/proc/1/stat"}) {
		t.Errorf("changed = %v", got)
	}
	if got := r.StartedLater(roots); !reflect.DeepEqual(got, []int{3}) {
		t.Errorf("started later = %v, want [3]", got)
	}
}

func TestRecorderRedact(t *testing.T) {
	r := NewRecorder()
	r.File("/proc/7/environ", []byte("PGPASSWORD=x\x00"))
	r.File("/proc/7/cmdline", []byte("mysql\x00-pSecret\x00"))
	r.File("/proc/7/status", []byte("Name:\tpassword=notasecret\n"))
	r.File("/var/lib/postgresql/15/main/postgresql.auto.conf", []byte("primary_conninfo = 'password=Secret'\n"))
	red := r.Redact(roots)
	files, _ := r.Tree(roots)
	if _, ok := files["proc/7/environ"]; ok || !reflect.DeepEqual(red.Dropped, []string{"proc/7/environ"}) {
		t.Errorf("environ kept: %v", red)
	}
	for p, b := range files {
		if strings.Contains(string(b), "Secret") {
			t.Errorf("%s still holds the secret: %q", p, b)
		}
	}
	if string(files["proc/7/status"]) != "Name:\tpassword=notasecret\n" || len(red.Changed) != 2 {
		t.Errorf("kernel files must be kept as read; changed = %v", red.Changed)
	}
}

type failing struct{}

func (failing) Live(context.Context, *postgres.Instance) (postgres.Live, error) {
	return postgres.Live{}, errors.New("password authentication failed for user \"x\"")
}

// A failed connection replays as the same failure, so the report from a
// tree says what the live one said.
func TestLiveRecorderReplaysFailures(t *testing.T) {
	dir := t.TempDir()
	rec := &LiveRecorder{Inner: failing{}}
	in := &postgres.Instance{PostmasterPID: 42}
	_, want := rec.Live(context.Background(), in)
	if err := rec.WriteTree(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, LiveErrorPath(42))); err != nil {
		t.Fatal(err)
	}
	_, got := TreeLive{Dir: dir}.Live(context.Background(), in)
	if got == nil || got.Error() != want.Error() {
		t.Errorf("replayed %v, want %v", got, want)
	}
	if _, err := (TreeLive{Dir: dir}).Live(context.Background(), &postgres.Instance{PostmasterPID: 43}); err == nil || !strings.Contains(err.Error(), "no settings were captured") {
		t.Errorf("unknown instance: %v", err)
	}
}
