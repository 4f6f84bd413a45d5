package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dbmem/dbmem/internal/postgres"
)

// LiveRecorder wraps a postgres.LiveSource and keeps what it returned, by
// postmaster PID, so a captured tree also holds what the servers said.
type LiveRecorder struct {
	Inner postgres.LiveSource
	got   answers[postgres.Live]
}

// Live asks the inner source and records its answer, or its failure.
func (r *LiveRecorder) Live(ctx context.Context, in *postgres.Instance) (postgres.Live, error) {
	l, err := r.Inner.Live(ctx, in)
	return r.got.record(in.PostmasterPID, l, err)
}

// WriteTree writes live/<postmaster pid>.json under dst.
func (r *LiveRecorder) WriteTree(dst string) error {
	seen, failed := r.got.copies()
	for pid, l := range seen {
		b, err := json.MarshalIndent(l, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(dst, LivePath(pid)), b); err != nil {
			return err
		}
	}
	for pid, why := range failed {
		if err := writeFile(filepath.Join(dst, LiveErrorPath(pid)), []byte(why)); err != nil {
			return err
		}
	}
	return nil
}

// TreeLive answers from the live/ directory of a tree written by
// LiveRecorder: offline, what the server said when the tree was captured.
type TreeLive struct {
	Dir string
	// Read reads a file of the tree (nil: os.ReadFile); a bundle held in
	// memory reads its members.
	Read func(path string) ([]byte, error)
}

func orReadFile(read func(string) ([]byte, error)) func(string) ([]byte, error) {
	if read == nil {
		return os.ReadFile
	}
	return read
}

// Live returns the recorded answer for the instance's postmaster.
func (t TreeLive) Live(_ context.Context, in *postgres.Instance) (postgres.Live, error) {
	return readAnswer[postgres.Live](t.Read, t.Dir, LivePath(in.PostmasterPID), LiveErrorPath(in.PostmasterPID), "instance")
}

// readAnswer reads the answer a recorder kept at path in the tree dir, or
// returns the failure it kept at errPath: what the live source said at
// capture time. what names the server in the error when neither is there.
func readAnswer[T any](read func(string) ([]byte, error), dir, path, errPath, what string) (T, error) {
	var v T
	read = orReadFile(read)
	p := filepath.Join(dir, filepath.FromSlash(path))
	b, err := read(p)
	if err != nil {
		if why, err := read(filepath.Join(dir, filepath.FromSlash(errPath))); err == nil {
			return v, errors.New(string(why))
		}
		return v, fmt.Errorf("no settings were captured for this %s (%s)", what, filepath.Base(p))
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("read %s: %w", p, err)
	}
	return v, nil
}
