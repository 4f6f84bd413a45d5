package linux

import (
	iofs "io/fs"
	"strings"
	"syscall"
)

// kernelFile reports whether path is a file of the running kernel's /proc
// or /sys, which readKernelFile reads: never a file reached through a
// process's root, cwd, exe or open files (a FIFO or a device may be there).
func (fs FS) kernelFile(path string) bool {
	switch {
	case strings.HasPrefix(path, "/sys/"):
	case strings.HasPrefix(path, "/proc/"):
		for _, c := range strings.Split(path, "/")[3:] {
			switch c {
			case "root", "cwd", "exe", "fd", "map_files":
				return false
			}
		}
	default:
		return false
	}
	return fs.IsLive()
}

// readKernelFile reads up to max bytes (0: all) of a /proc or /sys file
// with plain system calls. An os.File registers with Go's poller (fstat,
// fcntl, epoll_ctl refused): for kernel files, never pollable, that was 5
// of every 8 system calls of dbmem report, which reads thousands of them.
// O_NONBLOCK: nothing kernelFile lets through can block, and if it could,
// the read would fail rather than wait.
func readKernelFile(path string, max int64) ([]byte, error) {
	const flags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK
	fd, err := syscall.Open(path, flags, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(path, flags, 0)
	}
	if err != nil {
		return nil, &iofs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	b := make([]byte, 0, 2048)
	for max == 0 || int64(len(b)) < max {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		room := b[len(b):cap(b)]
		if max > 0 && int64(len(room)) > max-int64(len(b)) {
			room = room[:max-int64(len(b))]
		}
		n, err := syscall.Read(fd, room)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &iofs.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return b, nil
		}
		b = b[:len(b)+n]
	}
	return b, nil
}
