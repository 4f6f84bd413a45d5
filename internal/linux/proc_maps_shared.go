package linux

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// PROCMAP_QUERY (Linux 6.11+, include/uapi/linux/fs.h) asks /proc/PID/maps
// for one mapping at a time, filtered by the kernel: the next mapping at
// or after an address that is shared and backed by a file. The SysV scan
// reads the shared mappings of every process on the host; a PostgreSQL
// backend has about 280 mappings and 3-4 shared ones, so printing and
// reading the whole maps text of 470 processes took 170 ms where these
// queries take 25 ms (docs/performance.md).
const (
	procmapQueryIoctl = 0xC0686611 // _IOWR(0x66, 17, struct procmap_query), 104 bytes
	vmaReadable       = 0x01
	vmaWritable       = 0x02
	vmaExecutable     = 0x04
	vmaShared         = 0x08
	queryCoveringNext = 0x10
	queryFileBacked   = 0x20
	maxVMAName        = 4096 + len(" (deleted)")
)

// procmapQuery is struct procmap_query.
type procmapQuery struct {
	size, queryFlags, queryAddr, vmaStart, vmaEnd, vmaFlags, vmaPageSize, vmaOffset, inode uint64
	devMajor, devMinor, vmaNameSize, buildIDSize                                           uint32
	vmaNameAddr, buildIDAddr                                                               uint64
}

// procmapUnsupported is set once the kernel said it has no PROCMAP_QUERY.
var procmapUnsupported atomic.Bool

// errNoProcmap means PROCMAP_QUERY cannot answer: read the maps text.
var errNoProcmap = errors.New("PROCMAP_QUERY not available")

// ReadSharedMappings returns the MAP_SHARED mappings of a file (SysV
// segments, /dev/shm, shared anonymous memory's "/dev/zero (deleted)") of
// pid, as ReadMaps would list them. On a live host it asks the kernel for
// those mappings only (PROCMAP_QUERY); a capture, a fixture, a Tap that
// records the maps text, or an older kernel read /proc/PID/maps. (A name
// with a newline, which maps prints as \012, comes back as it is.)
func ReadSharedMappings(fs FS, pid int) ([]Mapping, error) {
	path := fs.ProcPath(strconv.Itoa(pid), "maps")
	if fs.IsLive() && fs.Tap == nil && !procmapUnsupported.Load() {
		var out []Mapping
		err := fs.bounded(path, func() (err error) { out, err = queryShared(path); return err })
		if !errors.Is(err, errNoProcmap) {
			if err != nil {
				return nil, fs.pathError("read", path, err)
			}
			return out, nil
		}
	}
	all, err := ReadMaps(fs, pid)
	var out []Mapping
	for _, m := range all {
		if m.Shared() {
			out = append(out, m)
		}
	}
	return out, err
}

// queryShared lists the shared file mappings of the maps file at path.
func queryShared(path string) ([]Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	name := make([]byte, maxVMAName)
	var out []Mapping
	for addr := uint64(0); ; {
		q := procmapQuery{size: uint64(unsafe.Sizeof(procmapQuery{})), queryAddr: addr,
			queryFlags:  vmaShared | queryCoveringNext | queryFileBacked,
			vmaNameSize: uint32(len(name)), vmaNameAddr: uint64(uintptr(unsafe.Pointer(&name[0])))}
		_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), procmapQueryIoctl, uintptr(unsafe.Pointer(&q)))
		runtime.KeepAlive(name)
		switch {
		case errno == syscall.ENOENT:
			return out, nil // no mapping past addr
		case errno == syscall.ENOTTY:
			procmapUnsupported.Store(true)
			return nil, errNoProcmap
		case errno == syscall.E2BIG || errno == syscall.EINVAL || errno == syscall.ENAMETOOLONG:
			return nil, errNoProcmap // this answer needs the text
		case errno != 0:
			return nil, errno
		}
		out = append(out, queriedMapping(q, name))
		if q.vmaEnd <= addr {
			return nil, fmt.Errorf("PROCMAP_QUERY at %#x answered %#x-%#x", addr, q.vmaStart, q.vmaEnd)
		}
		addr = q.vmaEnd
	}
}

// queriedMapping is the Mapping maps would print for q.
func queriedMapping(q procmapQuery, name []byte) Mapping {
	perms := []byte("---p")
	for i, bit := range []uint64{vmaReadable, vmaWritable, vmaExecutable} {
		if q.vmaFlags&bit != 0 {
			perms[i] = "rwx"[i]
		}
	}
	if q.vmaFlags&vmaShared != 0 {
		perms[3] = 's'
	}
	m := Mapping{Start: q.vmaStart, End: q.vmaEnd, Perms: string(perms), Offset: q.vmaOffset,
		Dev: fmt.Sprintf("%02x:%02x", q.devMajor, q.devMinor), Inode: q.inode, PageSizeBytes: q.vmaPageSize}
	if n := int(q.vmaNameSize); n > 0 && n <= len(name) {
		m.Path = string(name[:n-1]) // the size counts the terminating NUL
	}
	return m
}
