package linux

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooBig marks a file refused because it holds more bytes than its
// reader's bound: it is refused whole, never cut.
var ErrTooBig = errors.New("over the size bound")

// MaxCmdlineBytes bounds what is read of /proc/PID/cmdline. A process's
// arguments are chosen by its owner and may reach a quarter of its stack
// limit (ARG_MAX: 2 MiB by default, hundreds of MiB with `ulimit -s
// unlimited`); what dbmem uses of them (a title, a few flags) is at the
// start. 64 KiB holds any database's command line (the longest of the
// recorded fixtures is under 300 bytes) and a long JVM class path's head.
const MaxCmdlineBytes = 64 << 10

// ReadFileMax reads a whole file as ReadFile does, but refuses one that
// holds more than max bytes (an error wrapping ErrTooBig that names it):
// a regular file is refused by its size before any byte is read (a 512
// MiB sparse file costs one fstat), a kernel file after max+1 bytes.
func (fs FS) ReadFileMax(path string, max int64) ([]byte, error) {
	b, cut, err := fs.readUpTo(path, max, true)
	if err != nil {
		return nil, err
	}
	if cut {
		return nil, fmt.Errorf("read %s: more than %d bytes: %w", fs.Display(path), max, ErrTooBig)
	}
	return b, nil
}

// ReadFileCut reads at most max bytes of a file; cut says more was
// there. Strings another user writes (/proc/PID/cmdline) are read so.
func (fs FS) ReadFileCut(path string, max int64) ([]byte, bool, error) {
	return fs.readUpTo(path, max, false)
}

// readUpTo reads at most max bytes of path; with whole, a regular file
// over max is not read at all. What is read is given to the Tap, cut or
// not (a capture holds what the reader saw).
func (fs FS) readUpTo(path string, max int64, whole bool) (b []byte, cut bool, err error) {
	err = fs.bounded(path, func() (err error) {
		b, cut, err = fs.readUpToNow(path, max, whole)
		return err
	})
	if err != nil {
		return nil, false, fs.pathError("read", path, err)
	}
	if fs.Tap != nil && b != nil {
		fs.Tap.File(path, b)
	}
	return b, cut, nil
}

func (fs FS) readUpToNow(path string, max int64, whole bool) ([]byte, bool, error) {
	if fs.Files != nil {
		b, err := fs.Files.ReadFile(path)
		switch {
		case err != nil || int64(len(b)) <= max:
			return b, false, err
		case whole:
			return nil, true, nil
		}
		return b[:max], true, nil
	}
	if fs.kernelFile(path) { // its size is 0 or a guess: read max+1 bytes
		b, err := readKernelFile(path, max+1)
		switch {
		case err != nil || int64(len(b)) <= max:
			return b, false, err
		case whole:
			return nil, true, nil
		}
		return b[:max], true, nil
	}
	f, err := fs.openNoBlock(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if whole && st.Size() > max {
		return nil, true, nil // a regular file's size: nothing read
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, false, err
	}
	if int64(len(b)) > max {
		if whole {
			return nil, true, nil
		}
		return b[:max], true, nil
	}
	if b == nil {
		b = []byte{}
	}
	return b, false, nil
}

// openNoBlock opens path as Open does (as Account could under Root), with
// O_NONBLOCK so that a FIFO cannot block the open, and refuses anything
// but a regular file: a FIFO, a device or a socket never ends or never
// answers. Under Deadlines (watch, the exporter) a read that blocks is
// abandoned at its deadline instead, as a read of a process whose mmap
// lock is held must be; there a FIFO in a recorded tree stands for one
// (treetest.HungHost) and is opened as any file.
func (fs FS) openNoBlock(path string) (*os.File, error) {
	if fs.Deadlines != nil && fs.Account == nil {
		return os.Open(path)
	}
	f, err := fs.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("not a regular file (%s): refused, a read of it may never end", st.Mode().Type())
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Readable reports, as an error naming path, why a read of it would fail:
// it is opened (as ReadFileMax would) and closed, nothing read or tapped.
func (fs FS) Readable(path string) error {
	err := fs.bounded(path, func() error {
		if fs.Files != nil {
			_, err := fs.Files.ReadFile(path)
			return err
		}
		f, err := fs.openNoBlock(path)
		if err == nil {
			f.Close()
		}
		return err
	})
	if err != nil {
		return fs.pathError("read", path, err)
	}
	return nil
}

// readPlain reads a whole file opened by openNoBlock.
func (fs FS) readPlain(path string) ([]byte, error) {
	f, err := fs.openNoBlock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
