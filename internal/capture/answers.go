package capture

import (
	"maps"
	"sync"
)

// answers keeps, by server PID, what a live source returned or why it
// failed; both recorders (PostgreSQL, MySQL) build on it. Safe for
// concurrent use.
type answers[T any] struct {
	mu   sync.Mutex
	seen map[int]T
	// failed holds why asking failed, so a replay says the same.
	failed map[int]string
}

// record keeps v, or err's text when err is not nil, and returns them.
func (a *answers[T]) record(pid int, v T, err error) (T, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.seen == nil {
		a.seen, a.failed = map[int]T{}, map[int]string{}
	}
	if err != nil {
		a.failed[pid] = err.Error()
		return v, err
	}
	a.seen[pid] = v
	return v, nil
}

// copies returns copies of the answers and the failures.
func (a *answers[T]) copies() (map[int]T, map[int]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	seen, failed := maps.Clone(a.seen), maps.Clone(a.failed)
	if seen == nil {
		seen, failed = map[int]T{}, map[int]string{}
	}
	return seen, failed
}
