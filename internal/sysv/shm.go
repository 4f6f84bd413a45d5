package sysv

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// Mode bits the kernel keeps next to the permission bits of a segment.
const (
	ModeDest   = 0o1000 // SHM_DEST: IPC_RMID was called; removed at the last detach
	ModeLocked = 0o2000 // SHM_LOCKED: shmctl(SHM_LOCK) keeps it out of swap
)

// Segment is one line of /proc/sysvipc/shm. Sizes are bytes.
type Segment struct {
	Key        int32  // key_t as the kernel prints it; 0 is IPC_PRIVATE (or removed)
	ID         int    // shmid; also the inode of its mappings in /proc/PID/maps
	Mode       uint32 // permission bits plus ModeDest and ModeLocked
	SizeBytes  uint64 // size asked at shmget (not rounded to pages)
	CreatorPID int    // cpid
	LastPID    int    // lpid: last shmat/shmdt
	Attached   uint64 // nattch: attaches in all processes of the IPC namespace
	UID, GID   uint32 // owner (IPC_SET can change it)
	CreatorUID uint32
	CreatorGID uint32
	AttachTime int64 // unix seconds of the last shmat, 0 if never
	DetachTime int64 // unix seconds of the last shmdt, 0 if never
	ChangeTime int64 // unix seconds of creation or the last IPC_SET

	// RSSBytes and SwapBytes are nil where the kernel has no rss/swap
	// columns (older kernels). For a SHM_HUGETLB segment RSS counts the
	// huge pages faulted in.
	RSSBytes  *uint64
	SwapBytes *uint64
}

// KeyHex is the key as it appears in the mapping name ("SYSV%08x").
func (s Segment) KeyHex() string { return fmt.Sprintf("%08x", uint32(s.Key)) }

// Destroyed reports SHM_DEST: marked for removal, still attached somewhere.
func (s Segment) Destroyed() bool { return s.Mode&ModeDest != 0 }

// Locked reports SHM_LOCKED (shmctl SHM_LOCK).
func (s Segment) Locked() bool { return s.Mode&ModeLocked != 0 }

// ReadSegments reads the SysV shared memory segments of the reader's IPC
// namespace from /proc/sysvipc/shm.
func ReadSegments(fsys linux.FS) ([]Segment, error) {
	path := fsys.ProcPath("sysvipc", "shm")
	b, err := fsys.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w (is procfs mounted, or is SysV IPC compiled out of this kernel?)", err)
	}
	segs, err := parseShm(bytes.NewReader(b))
	if err != nil {
		return segs, fmt.Errorf("parse %s: %w", fsys.Display(path), err)
	}
	return segs, nil
}

// shmColumns are the columns every kernel prints; rss and swap are optional.
var shmColumns = []string{"key", "shmid", "perms", "size", "cpid", "lpid", "nattch",
	"uid", "gid", "cuid", "cgid", "atime", "dtime", "ctime"}

// parseShm parses /proc/sysvipc/shm. Columns are found by the header line,
// so kernels with and without the rss/swap columns are read alike.
func parseShm(r io.Reader) ([]Segment, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 64*1024)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("empty file: want a header line starting with \"key\"")
	}
	col, width, err := shmHeader(sc.Text())
	if err != nil {
		return nil, err
	}
	var out []Segment
	for n := 2; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != width {
			return out, fmt.Errorf("line %d: %d fields, header has %d", n, len(f), width)
		}
		s, err := shmRow(f, col)
		if err != nil {
			return out, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, s)
	}
	return out, sc.Err()
}

// shmHeader maps column names to positions, checks the required ones and
// returns the number of columns.
func shmHeader(line string) (map[string]int, int, error) {
	col := map[string]int{}
	names := strings.Fields(line)
	for i, name := range names {
		col[name] = i
	}
	for _, name := range shmColumns {
		if _, ok := col[name]; !ok {
			return nil, 0, fmt.Errorf("header %q has no %q column", line, name)
		}
	}
	return col, len(names), nil
}

// shmRow converts the fields of one segment. A bad number stops the row.
func shmRow(f []string, col map[string]int) (Segment, error) {
	p := fieldParser{f: f, col: col}
	s := Segment{
		Key:        int32(p.int("key", 32)),
		ID:         int(p.int("shmid", 32)),
		Mode:       uint32(p.uintBase("perms", 8, 32)),
		SizeBytes:  p.uint("size"),
		CreatorPID: int(p.int("cpid", 32)),
		LastPID:    int(p.int("lpid", 32)),
		Attached:   p.uint("nattch"),
		UID:        uint32(p.uintBase("uid", 10, 32)),
		GID:        uint32(p.uintBase("gid", 10, 32)),
		CreatorUID: uint32(p.uintBase("cuid", 10, 32)),
		CreatorGID: uint32(p.uintBase("cgid", 10, 32)),
		AttachTime: p.int("atime", 64),
		DetachTime: p.int("dtime", 64),
		ChangeTime: p.int("ctime", 64),
		RSSBytes:   p.optUint("rss"),
		SwapBytes:  p.optUint("swap"),
	}
	return s, p.err
}

// fieldParser converts named columns and keeps the first error.
type fieldParser struct {
	f   []string
	col map[string]int
	err error
}

func (p *fieldParser) uintBase(name string, base, bits int) uint64 {
	v, err := strconv.ParseUint(p.f[p.col[name]], base, bits)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("column %s: %w", name, err)
	}
	return v
}

func (p *fieldParser) uint(name string) uint64 { return p.uintBase(name, 10, 64) }

func (p *fieldParser) int(name string, bits int) int64 {
	v, err := strconv.ParseInt(p.f[p.col[name]], 10, bits)
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("column %s: %w", name, err)
	}
	return v
}

func (p *fieldParser) optUint(name string) *uint64 {
	if _, ok := p.col[name]; !ok {
		return nil
	}
	v := p.uint(name)
	return &v
}
