package postmortem

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"time"
)

// DefaultMaxBytes is how much of each log file is read: its last 16 MiB.
const DefaultMaxBytes = 16 << 20

// maxGunzip bounds what a rotated .gz log may expand to.
const maxGunzip = 4 << 30

// streamTimeout bounds reading a log that is not a regular file (a pipe,
// a FIFO, a character device): such a source may never end.
const streamTimeout = 30 * time.Second

// tail is the end of a file.
type tail struct {
	data      []byte
	size      int64 // bytes in the whole file (uncompressed for .gz)
	truncated bool
	modTime   time.Time
	stream    bool // a pipe or device, read until its end or the deadline
	// overBudget: the stream did not end within streamBudget bytes.
	overBudget bool
	// binary: what was kept is not text (notText), before its first
	// partial line was dropped.
	binary bool
}

// errStreamDeadline says a pipe or FIFO did not end within streamTimeout.
var errStreamDeadline = errors.New("no end of input within " + streamTimeout.String() + " (a pipe or FIFO whose writer never closed it)")

// opener opens a log: openLog, or linux.FS.Open with the server's account
// (which opens without waiting for a FIFO's writer too).
type opener func(string) (*os.File, error)

// openLog opens a log given on the command line or found as root: a FIFO
// is opened without waiting for a writer.
func openLog(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// readTail reads at most max bytes from the end of the file at p (of its
// decompressed content for a .gz file), starting at a line boundary. It
// never blocks past ctx: a FIFO is opened without waiting for a writer and
// read with a deadline, and every read stops when ctx is done.
func readTail(ctx context.Context, open opener, p string, max int64) (tail, error) {
	if err := ctx.Err(); err != nil {
		return tail{}, err
	}
	f, err := open(p)
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return tail{}, fmt.Errorf("stat %s: %w", p, err)
	}
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	r := &ctxReader{ctx: ctx, r: f}
	switch {
	case st.Mode().IsDir():
		return tail{}, fmt.Errorf("read %s: a directory, not a log file", p)
	case !st.Mode().IsRegular():
		return readStream(ctx, f, r, p, max)
	case strings.HasSuffix(p, ".gz"):
		t, err := gunzipTail(r, p, max)
		t.modTime = st.ModTime()
		return t, err
	}
	t, err := regularTail(f, r, p, st.Size(), max)
	t.modTime = st.ModTime()
	return t, err
}

// regularTail reads the last max bytes of a regular file.
func regularTail(f *os.File, r io.Reader, p string, size, max int64) (tail, error) {
	t := tail{size: size}
	if t.size > max {
		if _, err := f.Seek(t.size-max, io.SeekStart); err != nil {
			return tail{}, fmt.Errorf("seek %s: %w", p, err)
		}
		t.truncated = true
	}
	var err error
	if t.data, err = io.ReadAll(io.LimitReader(r, max)); err != nil {
		return tail{}, fmt.Errorf("read %s: %w", p, err)
	}
	t.data = fromLineStart(t.data, t.truncated)
	return t, nil
}

// readStream reads a pipe or FIFO to its end, keeping the last max bytes,
// for at most streamTimeout.
func readStream(ctx context.Context, f *os.File, r io.Reader, p string, max int64) (tail, error) {
	if err := f.SetReadDeadline(time.Now().Add(streamTimeout)); err != nil && !errors.Is(err, os.ErrNoDeadline) {
		return tail{}, fmt.Errorf("read %s: %w", p, err)
	}
	w := &tailWriter{max: int(max)}
	n, err := io.Copy(w, &streamLimit{r: r, left: streamBudget(max), until: time.Now().Add(streamTimeout)})
	over := errors.Is(err, errStreamBudget)
	if err != nil && !over {
		if cerr := ctx.Err(); cerr != nil {
			return tail{}, fmt.Errorf("read %s: %w", p, cerr)
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return tail{}, fmt.Errorf("read %s: %w", p, errStreamDeadline)
		}
		return tail{}, fmt.Errorf("read %s: %w", p, err)
	}
	t := tail{size: n, truncated: n > max, stream: true, overBudget: over, binary: notText(w.bytes())}
	t.data = fromLineStart(w.bytes(), t.truncated)
	return t, nil
}

// ctxReader stops reading when its context is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// gunzipTail streams a compressed log and keeps its last max bytes.
func gunzipTail(r io.Reader, p string, max int64) (tail, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return tail{}, fmt.Errorf("read %s: %w", p, err)
	}
	defer zr.Close()
	w := &tailWriter{max: int(max)}
	n, err := io.Copy(w, io.LimitReader(zr, maxGunzip))
	if err != nil {
		return tail{}, fmt.Errorf("read %s: %w", p, err)
	}
	t := tail{size: n, truncated: n > max}
	t.data = fromLineStart(w.bytes(), t.truncated)
	return t, nil
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	buf []byte
	max int
}

func (w *tailWriter) Write(b []byte) (int, error) {
	w.buf = append(w.buf, b...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(b), nil
}

func (w *tailWriter) bytes() []byte {
	if len(w.buf) > w.max {
		return w.buf[len(w.buf)-w.max:]
	}
	return w.buf
}

// fromLineStart drops the partial first line of a tail.
func fromLineStart(b []byte, cut bool) []byte {
	if !cut {
		return b
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[i+1:]
	}
	return nil
}
