package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/dbmem/dbmem/internal/postgres"
)

// LiveRecorder wraps a postgres.LiveSource and keeps what it returned, by
// postmaster PID, so a captured tree also holds what the servers said.
type LiveRecorder struct {
	Inner postgres.LiveSource
	mu    sync.Mutex
	seen  map[int]postgres.Live
	// failed holds why asking failed, so a replay says the same.
	failed map[int]string
}

// Live asks the inner source and records its answer, or its failure.
func (r *LiveRecorder) Live(ctx context.Context, in *postgres.Instance) (postgres.Live, error) {
	l, err := r.Inner.Live(ctx, in)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen, r.failed = map[int]postgres.Live{}, map[int]string{}
	}
	if err != nil {
		r.failed[in.PostmasterPID] = err.Error()
		return l, err
	}
	r.seen[in.PostmasterPID] = l
	return l, nil
}

// WriteTree writes live/<postmaster pid>.json under dst.
func (r *LiveRecorder) WriteTree(dst string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for pid, l := range r.seen {
		b, err := json.MarshalIndent(l, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dst, "live", strconv.Itoa(pid)+".json"), b); err != nil {
			return err
		}
	}
	for pid, why := range r.failed {
		if err := writeFile(filepath.Join(dst, LiveErrorPath(pid)), []byte(why)); err != nil {
			return err
		}
	}
	return nil
}

// TreeLive answers from the live/ directory of a tree written by
// LiveRecorder: offline, what the server said when the tree was captured.
type TreeLive struct{ Dir string }

// Live returns the recorded answer for the instance's postmaster.
func (t TreeLive) Live(_ context.Context, in *postgres.Instance) (postgres.Live, error) {
	var l postgres.Live
	p := filepath.Join(t.Dir, "live", strconv.Itoa(in.PostmasterPID)+".json")
	b, err := os.ReadFile(p)
	if err != nil {
		if why, err := os.ReadFile(filepath.Join(t.Dir, LiveErrorPath(in.PostmasterPID))); err == nil {
			return l, errors.New(string(why)) // what the live source said at capture time
		}
		return l, fmt.Errorf("no settings were captured for this instance (%s)", filepath.Base(p))
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return l, fmt.Errorf("read %s: %w", p, err)
	}
	return l, nil
}
