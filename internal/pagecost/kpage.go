package pagecost

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// Run planning: bridge gaps of up to 32 PFNs (256 bytes read for nothing
// costs less than a system call) and read at most 64 Ki PFNs at once.
const (
	runMaxGap = 32
	runMaxLen = 64 * 1024
)

// kpageFiles are /proc/kpagecount and /proc/kpageflags, opened once per
// Measure and read with pread from several goroutines.
type kpageFiles struct {
	count, flags *os.File
}

// openKpage opens both files; the error is a *FallbackError.
func openKpage(countPath, flagsPath string) (*kpageFiles, *FallbackError) {
	c, err := os.Open(countPath)
	if err != nil {
		return nil, kpageFallback(countPath, err)
	}
	f, err := os.Open(flagsPath)
	if err != nil {
		c.Close()
		return nil, kpageFallback(flagsPath, err)
	}
	k := &kpageFiles{count: c, flags: f}
	if _, err := k.readRun(pfnRun{first: 1, n: 1}, make([]byte, 8), nil); err != nil {
		k.close()
		return nil, kpageFallback(countPath, err)
	}
	return k, nil
}

func (k *kpageFiles) close() {
	k.count.Close()
	k.flags.Close()
}

// readRun reads the counts and flags of one run into info (len r.n), using
// buf (at least 8*r.n bytes) as scratch. Entries past the end of the files
// stay zero.
func (k *kpageFiles) readRun(r pfnRun, buf []byte, info []pageInfo) ([]pageInfo, error) {
	if info == nil {
		info = make([]pageInfo, r.n)
	}
	buf = buf[:8*r.n]
	n, err := readAtMost(k.count, buf, int64(r.first*8))
	if err != nil {
		return nil, fmt.Errorf("read %s at PFN %d: %w", k.count.Name(), r.first, err)
	}
	for i := 0; i < n/8; i++ {
		info[i].mapcount = binary.NativeEndian.Uint64(buf[8*i:])
	}
	if n, err = readAtMost(k.flags, buf, int64(r.first*8)); err != nil {
		return nil, fmt.Errorf("read %s at PFN %d: %w", k.flags.Name(), r.first, err)
	}
	for i := 0; i < n/8; i++ {
		info[i].flags = binary.NativeEndian.Uint64(buf[8*i:])
	}
	return info, nil
}

// readAtMost preads up to len(buf) bytes; a short read at the end of the
// file is not an error.
func readAtMost(f *os.File, buf []byte, off int64) (int, error) {
	n, err := f.ReadAt(buf, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// readTable reads the page info of every PFN in the lookup runs with
// parallel goroutines.
func (k *kpageFiles) readTable(lookups []pfnRun, parallel int) (*pageTable, error) {
	runs := planRuns(lookups, runMaxGap, runMaxLen)
	pt := &pageTable{runs: runs, info: make([][]pageInfo, len(runs))}
	errs := make([]error, len(runs))
	forEach(len(runs), parallel, func(buf *[]byte, i int) {
		if need := int(8 * runs[i].n); cap(*buf) < need {
			*buf = make([]byte, need)
		}
		pt.info[i], errs[i] = k.readRun(runs[i], *buf, nil)
	})
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pt, nil
}
