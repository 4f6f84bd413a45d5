package pagecost

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/dbmem/dbmem/internal/linux"
)

// Reason says why the fast path could not be used.
type Reason int

const (
	// ReasonNotRoot: /proc/kpagecount or /proc/kpageflags is not readable
	// (they are root-only, mode 0400).
	ReasonNotRoot Reason = iota + 1
	// ReasonNoPageMonitor: the files do not exist (kernel built without
	// CONFIG_PROC_PAGE_MONITOR, or a captured /proc).
	ReasonNoPageMonitor
	// ReasonPFNHidden: pagemap shows no page frame numbers, which the kernel
	// hides without CAP_SYS_ADMIN in the initial user namespace (containers).
	ReasonPFNHidden
	// ReasonPagemapDenied: this process's pagemap could not be opened
	// (another user's process, or a ptrace restriction).
	ReasonPagemapDenied
)

// smapsCostNote tells the price of the fallback (measured on this project's
// machines, see docs/pagecost.md).
const smapsCostNote = "about 45 ms per backend with 3 GiB of shared memory touched"

// FallbackError explains why MethodFast used another method for a process.
type FallbackError struct {
	Reason Reason
	Path   string // the file that could not be used
	Err    error  // the underlying error, if any
	// To is the method used instead: MethodSmaps (exact, as slow as the
	// page tables are large) or MethodStatus (cheap, an over-estimate).
	To Method
}

func (e *FallbackError) Error() string {
	var what string
	switch e.Reason {
	case ReasonNotRoot:
		what = "exact fast path needs root to read " + e.Path
	case ReasonNoPageMonitor:
		what = "exact fast path needs " + e.Path + " (kernel with CONFIG_PROC_PAGE_MONITOR)"
	case ReasonPFNHidden:
		what = "exact fast path needs CAP_SYS_ADMIN to see page frame numbers in " + e.Path
	case ReasonPagemapDenied:
		what = "exact fast path could not open " + e.Path
	default:
		what = "exact fast path not available"
	}
	if e.To == MethodStatus {
		return what + "; fell back to status: RssAnon stands in for Pss_Anon, an over-estimate (--method auto reads smaps_rollup instead)"
	}
	return what + "; fell back to smaps_rollup: " + smapsCostNote
}

func (e *FallbackError) Unwrap() error { return e.Err }

// kpageFallback turns the error of opening kpagecount or kpageflags into a
// fallback reason.
func kpageFallback(path string, err error) *FallbackError {
	r := ReasonNotRoot
	if errors.Is(err, fs.ErrNotExist) {
		r = ReasonNoPageMonitor
	}
	return &FallbackError{Reason: r, Path: path, Err: err}
}

// isGone reports whether err means the process went away mid-read:
// linux.IsGone, or the pagemap read that found the mm gone (ErrExited).
func isGone(err error) bool {
	return linux.IsGone(err) || errors.Is(err, ErrExited)
}

// skipErr wraps a gone process's error so callers can test errors.Is(err, ErrExited).
func skipErr(err error) error {
	if isGone(err) && !errors.Is(err, ErrExited) {
		return fmt.Errorf("%w: %w", ErrExited, err)
	}
	return err
}

// Fallbacks returns one FallbackError per distinct reason among costs, in
// order of first appearance, for a caller to print once each.
func Fallbacks(costs []Cost) []*FallbackError {
	var out []*FallbackError
	seen := map[Reason]bool{}
	for _, c := range costs {
		if c.Fallback != nil && !seen[c.Fallback.Reason] {
			seen[c.Fallback.Reason] = true
			out = append(out, c.Fallback)
		}
	}
	return out
}
