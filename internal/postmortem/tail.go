package postmortem

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"strings"
)

// DefaultMaxBytes is how much of each log file is read: its last 16 MiB.
const DefaultMaxBytes = 16 << 20

// maxGunzip bounds what a rotated .gz log may expand to.
const maxGunzip = 4 << 30

// tail is the end of a file.
type tail struct {
	data      []byte
	size      int64 // bytes in the whole file (uncompressed for .gz)
	truncated bool
}

// opener opens a log: os.Open, or linux.FS.Open with the server's account.
type opener func(string) (*os.File, error)

// readTail reads at most max bytes from the end of the file at p (of its
// decompressed content for a .gz file), starting at a line boundary.
func readTail(open opener, p string, max int64) (tail, error) {
	f, err := open(p)
	if err != nil {
		return tail{}, err
	}
	defer f.Close()
	if strings.HasSuffix(p, ".gz") {
		return gunzipTail(f, p, max)
	}
	st, err := f.Stat()
	if err != nil {
		return tail{}, fmt.Errorf("stat %s: %w", p, err)
	}
	if !st.Mode().IsRegular() {
		return tail{}, fmt.Errorf("read %s: not a regular file", p)
	}
	t := tail{size: st.Size()}
	if t.size > max {
		if _, err := f.Seek(t.size-max, io.SeekStart); err != nil {
			return tail{}, fmt.Errorf("seek %s: %w", p, err)
		}
		t.truncated = true
	}
	if t.data, err = io.ReadAll(io.LimitReader(f, max)); err != nil {
		return tail{}, fmt.Errorf("read %s: %w", p, err)
	}
	t.data = fromLineStart(t.data, t.truncated)
	return t, nil
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
