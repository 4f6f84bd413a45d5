package linux

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// TestReadSharedMappingsAgree maps, in this process, a SysV segment (one
// read-only attach too), a /dev/shm file and shared anonymous memory, and
// compares what PROCMAP_QUERY answers with the shared lines of the maps
// text: the same mappings, field for field.
func TestReadSharedMappingsAgree(t *testing.T) {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 1<<20, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no SysV shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	rw, err := unix.SysvShmAttach(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(rw)
	ro, err := unix.SysvShmAttach(id, 0, unix.SHM_RDONLY)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.SysvShmDetach(ro)
	anon, err := unix.Mmap(-1, 0, 1<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(anon)
	f, err := os.CreateTemp("/dev/shm", "dbmem-test-*")
	if err != nil {
		t.Skipf("no /dev/shm: %v", err)
	}
	defer os.Remove(f.Name())
	f.Truncate(1 << 16)
	file, err := unix.Mmap(int(f.Fd()), 0, 1<<16, unix.PROT_READ, unix.MAP_SHARED)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(file)

	fs := DefaultFS()
	queried, err := ReadSharedMappings(fs, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if procmapUnsupported.Load() {
		t.Skip("this kernel has no PROCMAP_QUERY (Linux 6.11+): only the maps text was read")
	}
	fs.Tap = nopTap{} // a Tap records the text: the maps path
	text, err := ReadSharedMappings(fs, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	plain := make([]Mapping, len(queried))
	for i, m := range queried {
		if m.PageSizeBytes != uint64(os.Getpagesize()) {
			t.Errorf("%s: page size %d, want the base page", m.Path, m.PageSizeBytes)
		}
		m.PageSizeBytes = 0 // the text does not say
		plain[i] = m
	}
	if diff := cmp.Diff(text, plain); diff != "" {
		t.Errorf("PROCMAP_QUERY differs from the maps text (-text +queried):\n%s", diff)
	}
	var sysv, shm, zero int
	for _, m := range queried {
		switch {
		case m.Inode == uint64(id) && filepath.Base(m.Path)[:4] == "SYSV":
			sysv++
		case m.Path == f.Name():
			shm++
		case m.Path == "/dev/zero (deleted)":
			zero++
		}
	}
	if sysv != 2 || shm != 1 || zero < 1 {
		t.Errorf("want the segment twice, the /dev/shm file once and shared anonymous memory: %d, %d, %d in %+v", sysv, shm, zero, queried)
	}
}

type nopTap struct{}

func (nopTap) File(string, []byte)  {}
func (nopTap) Dir(string, []string) {}
func (nopTap) Link(string, string)  {}
