package xray

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/dbmem/dbmem/internal/linux"
)

// DefaultMaxRead bounds what Follow reads while it waits for dumps: other
// sessions write to the same log.
const DefaultMaxRead = 64 << 20

// Follower reads what a log file gains from the moment it is opened,
// through a rotation (the collector's current_logfiles names a new file,
// or the path is a new file) and a truncation (copytruncate), each said in
// Notes. It reads as the server's account.
type Follower struct {
	fs       linux.FS
	relocate func() Source
	src      Source
	f        *os.File
	ino      uint64
	off      int64
	read     int64
	max      int64
	text     []byte
	// Notes say what happened to the log while it was followed.
	Notes []string
}

// Follow opens src's file at its end. relocate, when set, says where the
// log is now (called at each Poll to notice a rotation).
func Follow(fs linux.FS, src Source, relocate func() Source, max int64) (*Follower, error) {
	if max <= 0 {
		max = DefaultMaxRead
	}
	fl := &Follower{fs: fs, relocate: relocate, src: src, max: max}
	if err := fl.open(src, true); err != nil {
		return nil, err
	}
	return fl, nil
}

func (fl *Follower) open(src Source, atEnd bool) error {
	f, err := fl.fs.Open(fl.fs.HostPath(src.Path))
	if err != nil {
		return fmt.Errorf("open the server log %s: %w", src.Path, err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return fmt.Errorf("the server log %s is not a regular file", src.Path)
	}
	if fl.f != nil {
		fl.f.Close()
	}
	fl.f, fl.src, fl.off = f, src, 0
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fl.ino = sys.Ino
	}
	if atEnd {
		fl.off = st.Size()
	}
	return nil
}

// Close releases the file.
func (fl *Follower) Close() {
	if fl.f != nil {
		fl.f.Close()
	}
}

// Text is everything read so far.
func (fl *Follower) Text() []byte { return fl.text }

// Source is the file followed now.
func (fl *Follower) Source() Source { return fl.src }

// ErrTooMuch means the log grew by more than the bound while dbmem waited.
var ErrTooMuch = errors.New("the log grew by more than dbmem reads while waiting")

// Poll reads what the file gained, then moves to the new file if the log
// rotated (reading the old one to its end first). It returns the bytes
// read.
func (fl *Follower) Poll() (int, error) {
	n, err := fl.drain()
	if err != nil {
		return n, err
	}
	next, moved := fl.moved()
	if !moved {
		return n, nil
	}
	if err := fl.open(next, false); err != nil {
		fl.Notes = append(fl.Notes, fmt.Sprintf("the log rotated to %s, which cannot be read: %v", next.Path, err))
		return n, err
	}
	fl.Notes = append(fl.Notes, fmt.Sprintf("the log rotated to %s while dbmem waited: the end of %s and the new file were read", next.Path, fl.src.Path))
	m, err := fl.drain()
	return n + m, err
}

// drain reads the file from the offset to its end.
func (fl *Follower) drain() (int, error) {
	st, err := fl.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("stat the server log %s: %w", fl.src.Path, err)
	}
	if st.Size() < fl.off {
		fl.Notes = append(fl.Notes, fmt.Sprintf("the log %s was truncated while dbmem waited (copytruncate?): what was written before is lost", fl.src.Path))
		fl.off = 0
	}
	want := st.Size() - fl.off
	if fl.read+want > fl.max {
		return 0, fmt.Errorf("%w (%d bytes, more than %d)", ErrTooMuch, fl.read+want, fl.max)
	}
	if want <= 0 {
		return 0, nil
	}
	buf := make([]byte, want)
	n, err := fl.f.ReadAt(buf, fl.off)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, fmt.Errorf("read the server log %s: %w", fl.src.Path, err)
	}
	fl.off += int64(n)
	fl.read += int64(n)
	fl.text = append(fl.text, buf[:n]...)
	return n, nil
}

// moved says where the log went when it is no longer the file held.
func (fl *Follower) moved() (Source, bool) {
	next := fl.src
	if fl.relocate != nil {
		if s := fl.relocate(); s.Readable() {
			next = s
		}
	}
	if next.Path != fl.src.Path {
		return next, true
	}
	st, err := os.Stat(fl.fs.HostPath(next.Path))
	if err != nil {
		return next, false // gone or unreadable by name: keep the file held
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	return next, ok && sys.Ino != fl.ino
}
