package capture

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/dbmem/dbmem/internal/pooler"
)

// poolerAnswer is what a pooler's console said, and how it was reached.
type poolerAnswer struct {
	Console *pooler.Console `json:"console"`
	How     string          `json:"how"`
}

// PoolerRecorder wraps a pooler.ConsoleSource and keeps what it returned,
// by pooler PID: a captured tree also holds what each PgBouncer's admin
// console said (pool counts and sizes: no secrets; SHOW CONFIG is kept
// only for the keys dbmem uses).
type PoolerRecorder struct {
	Inner pooler.ConsoleSource
	got   answers[poolerAnswer]
}

// Console asks the inner source and records its answer, or its failure.
func (r *PoolerRecorder) Console(ctx context.Context, p *pooler.Pooler) (*pooler.Console, string, error) {
	c, how, err := r.Inner.Console(ctx, p)
	a, err := r.got.record(p.PID, poolerAnswer{Console: c, How: how}, err)
	return a.Console, a.How, err
}

// Files returns the recorded answers and failures keyed by their path in
// a tree (PoolerPath, PoolerErrorPath).
func (r *PoolerRecorder) Files() (map[string][]byte, error) {
	seen, failed := r.got.copies()
	files := map[string][]byte{}
	for pid, a := range seen {
		b, err := json.MarshalIndent(a, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("encode the console of pooler %d: %w", pid, err)
		}
		files[PoolerPath(pid)] = b
	}
	for pid, why := range failed {
		files[PoolerErrorPath(pid)] = []byte(why)
	}
	return files, nil
}

// PoolerPath is where a pooler's console answer lives in a tree.
func PoolerPath(pid int) string { return "live/pooler/" + strconv.Itoa(pid) + ".json" }

// PoolerErrorPath is where the failure to ask it is kept.
func PoolerErrorPath(pid int) string { return "live/pooler/" + strconv.Itoa(pid) + ".error" }

// TreePoolerConsole answers from a tree's live/pooler/ directory: offline,
// what the console said when the tree was captured.
type TreePoolerConsole struct {
	Dir  string
	Read func(path string) ([]byte, error)
}

// Console returns the recorded answer for the pooler's PID.
func (t TreePoolerConsole) Console(_ context.Context, p *pooler.Pooler) (*pooler.Console, string, error) {
	read := orReadFile(t.Read)
	b, err := read(filepath.Join(t.Dir, filepath.FromSlash(PoolerPath(p.PID))))
	if err != nil {
		if why, err := read(filepath.Join(t.Dir, filepath.FromSlash(PoolerErrorPath(p.PID)))); err == nil {
			return nil, "", errors.New(string(why))
		}
		return nil, "", fmt.Errorf("no console answer was captured for this pooler")
	}
	var a poolerAnswer
	if err := json.Unmarshal(b, &a); err != nil || a.Console == nil {
		return nil, "", fmt.Errorf("read %s: not a console answer (%v)", PoolerPath(p.PID), err)
	}
	return a.Console, a.How + " (at capture time)", nil
}
