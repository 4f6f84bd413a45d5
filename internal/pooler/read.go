package pooler

import (
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"time"

	"github.com/dbmem/dbmem/internal/linux"
)

// Limits bound what reading one pooler's configuration may cost: its
// files are written by whoever runs the pooler.
type Limits struct {
	// Files is the most files read, the main one and its includes.
	Files int
	// FileBytes bounds one file, TotalBytes all of them.
	FileBytes, TotalBytes int64
	// Depth is the deepest nesting of includes: PgBouncer's own limit is
	// 10 (libusual's MAX_INCLUDE); a deeper one it refuses too.
	Depth int
	// Time bounds reading them all; it is checked before each file.
	Time time.Duration
}

// DefaultLimits: a real pgbouncer.ini is a few KiB (Debian's, all
// comments, is 9.5 KiB); a host with a thousand databases, one line each,
// is about 100 KiB.
var DefaultLimits = Limits{Files: 64, FileBytes: 1 << 20, TotalBytes: 4 << 20, Depth: 10, Time: 10 * time.Second}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Files <= 0 {
		l.Files = d.Files
	}
	if l.FileBytes <= 0 {
		l.FileBytes = d.FileBytes
	}
	if l.TotalBytes <= 0 {
		l.TotalBytes = d.TotalBytes
	}
	if l.Depth <= 0 {
		l.Depth = d.Depth
	}
	if l.Time <= 0 {
		l.Time = d.Time
	}
	return l
}

// errTooBig marks a file over its limit.
var errTooBig = errors.New("too big")

// readBounded reads the host file abs under fs's root (as fs.Account may:
// OpenAs), refusing what is not a regular file and reading at most max
// bytes: a file that holds more is refused, not cut. What is read is
// given to fs.Tap, so a capture holds it.
func readBounded(fs linux.FS, abs string, max int64) ([]byte, error) {
	p := fs.HostPath(abs)
	if fs.Files != nil {
		b, err := fs.ReadFile(p)
		if err == nil && int64(len(b)) > max {
			return nil, fmt.Errorf("%s: %d bytes, more than the %d read: %w", fs.Display(p), len(b), max, errTooBig)
		}
		return b, err
	}
	f, err := fs.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", fs.Display(p), unwrapPath(err))
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", fs.Display(p), unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", fs.Display(p), st.Mode().Type())
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", fs.Display(p), unwrapPath(err))
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than the %d bytes read: %w", fs.Display(p), max, errTooBig)
	}
	if fs.Tap != nil {
		fs.Tap.File(p, b)
	}
	return b, nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
