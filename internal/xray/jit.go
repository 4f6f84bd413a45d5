package xray

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// JIT memory lives outside PostgreSQL's memory contexts: llvmjit.so and
// libLLVM are loaded into the backend the first time it compiles, and
// their relocated data (measured: 7.5 MiB of libLLVM-14 on Debian 12) and
// the code LLVM emits (anonymous executable mappings) are private pages of
// that backend. LLVM's own heap goes through malloc and cannot be told
// apart from PostgreSQL's: it stays in "outside memory contexts".

// isJITMapping reports whether a mapping belongs to JIT: a JIT library's,
// or an anonymous executable mapping (emitted code).
func isJITMapping(m linux.Mapping) bool {
	if m.Shared() {
		return false
	}
	if m.Path == "" {
		return len(m.Perms) >= 3 && m.Perms[2] == 'x'
	}
	base := path.Base(strings.TrimSuffix(m.Path, " (deleted)"))
	return strings.HasPrefix(base, "libLLVM") || strings.HasPrefix(base, "llvmjit")
}

// jitLibrary reports whether the mapping is a JIT library's (not emitted
// code).
func jitLibrary(m linux.Mapping) bool { return m.Path != "" && isJITMapping(m) }

// Bits of a /proc/PID/pagemap entry.
const (
	pmPresent   = uint64(1) << 63
	pmFile      = uint64(1) << 61
	pmExclusive = uint64(1) << 56
)

// MeasureJIT returns the bytes of the private anonymous pages of pid's JIT
// mappings (present, not file pages, mapped by this process alone), and
// whether a JIT library is mapped at all. Reading pagemap needs the right
// to ptrace the process (root, or the server's account).
func MeasureJIT(fs linux.FS, pid int) (bytes uint64, loaded bool, err error) {
	maps, err := linux.ReadMaps(fs, pid)
	if err != nil {
		return 0, false, err
	}
	var jit []linux.Mapping
	for _, m := range maps {
		if isJITMapping(m) {
			jit = append(jit, m)
			loaded = loaded || jitLibrary(m)
		}
	}
	if len(jit) == 0 {
		return 0, false, nil
	}
	p := fs.ProcPath(strconv.Itoa(pid), "pagemap")
	f, err := os.Open(p)
	if err != nil {
		return 0, loaded, err
	}
	defer f.Close()
	pages, err := countPrivatePages(f, jit)
	if err != nil {
		return 0, loaded, fmt.Errorf("read %s: %w", p, err)
	}
	return pages * uint64(os.Getpagesize()), loaded, nil
}

// countPrivatePages counts the present, anonymous, exclusively mapped
// pages of the mappings in a pagemap file.
func countPrivatePages(r io.ReaderAt, maps []linux.Mapping) (uint64, error) {
	page := uint64(os.Getpagesize())
	buf := make([]byte, 8*512)
	var n uint64
	for _, m := range maps {
		for va := m.Start; va < m.End; {
			count := min((m.End-va)/page, uint64(len(buf)/8))
			got, err := r.ReadAt(buf[:count*8], int64(va/page*8))
			if err != nil && err != io.EOF {
				return n, err
			}
			for i := 0; i+8 <= got; i += 8 {
				w := binary.LittleEndian.Uint64(buf[i:])
				if w&pmPresent != 0 && w&pmFile == 0 && w&pmExclusive != 0 {
					n++
				}
			}
			if got == 0 {
				break
			}
			va += uint64(got/8) * page
		}
	}
	return n, nil
}
