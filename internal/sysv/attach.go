package sysv

import (
	"slices"
	"strconv"

	"github.com/dbmem/dbmem/internal/linux"
)

// Attachment is one process that maps a segment.
type Attachment struct {
	PID       int
	Mappings  int    // lines in /proc/PID/maps (one shmat can be split by mprotect, or attached twice)
	Bytes     uint64 // address space mapped
	StartAddr uint64 // lowest start address
	ReadOnly  bool   // no mapping is writable (attached with SHM_RDONLY)
	// PageSizeBytes is the kernel's page size of the mapping where the
	// kernel told it with the mappings (linux.ReadSharedMappings); 0: read
	// smaps for it.
	PageSizeBytes uint64 `json:"-"`
}

// ProcProblem is a process file that could not be read or parsed.
type ProcProblem struct {
	PID  int
	File string // "maps", "smaps", "status", "limits"
	Err  string
}

// Degradation tells what a scan could not see. A process that exits during
// the scan is not listed: it no longer attaches anything.
type Degradation struct {
	ProcessesScanned int   // processes whose maps were read
	Denied           []int // PIDs whose maps were refused (EACCES/EPERM: not root, hidepid, ptrace rules); their attaches are missing
	OtherIPCNS       []int // PIDs with SysV mappings of another IPC namespace (a container): not matched to our segments
	Problems         []ProcProblem
}

// Complete reports whether every process was seen.
func (d Degradation) Complete() bool { return len(d.Denied) == 0 && len(d.Problems) == 0 }

// listPIDs returns the numeric entries of the procfs root, ascending.
func listPIDs(fsys linux.FS) ([]int, error) {
	pids, err := linux.ListPIDs(fsys)
	slices.Sort(pids)
	return pids, err
}

// scanAttachments reads /proc/PID/maps of every process and returns, by
// shmid, the processes that map each SysV segment.
func scanAttachments(fsys linux.FS) (map[int][]Attachment, Degradation, error) {
	var deg Degradation
	pids, err := listPIDs(fsys)
	if err != nil {
		return nil, deg, err
	}
	ownNS, nsErr := fsys.Readlink(fsys.ProcPath("self", "ns", "ipc"))
	out := map[int][]Attachment{}
	for _, pid := range pids {
		maps, err := readSysVMaps(fsys, pid)
		switch {
		case err != nil && linux.IsGone(err):
			continue
		case err != nil && linux.IsDenied(err):
			deg.Denied = append(deg.Denied, pid)
			continue
		case err != nil:
			deg.Problems = append(deg.Problems, ProcProblem{PID: pid, File: "maps", Err: err.Error()})
			continue
		}
		deg.ProcessesScanned++
		found := sysvAttachments(pid, maps)
		if len(found) == 0 {
			continue
		}
		if nsErr == nil && otherIPCNS(fsys, pid, ownNS) {
			deg.OtherIPCNS = append(deg.OtherIPCNS, pid)
			continue
		}
		for id, a := range found {
			out[id] = append(out[id], a)
		}
	}
	return out, deg, nil
}

// readSysVMaps returns the SysV mappings of pid: a process maps hundreds
// of files and few segments, and only its shared mappings can be segments
// (shmat maps them MAP_SHARED). linux.ReadSharedMappings asks the kernel
// for those alone where it can (PROCMAP_QUERY): printing and parsing
// every line of every process's maps was most of dbmem report's fixed
// cost (docs/performance.md).
func readSysVMaps(fsys linux.FS, pid int) ([]linux.Mapping, error) {
	shared, err := linux.ReadSharedMappings(fsys, pid)
	if err != nil {
		return nil, err
	}
	var out []linux.Mapping
	for _, m := range shared {
		if isSysV(m) {
			out = append(out, m)
		}
	}
	return out, nil
}

// otherIPCNS reports whether pid lives in another IPC namespace than ours.
// Its shmids then name other segments, though the numbers may collide.
func otherIPCNS(fsys linux.FS, pid int, ownNS string) bool {
	ns, err := fsys.Readlink(fsys.ProcPath(strconv.Itoa(pid), "ns", "ipc"))
	return err == nil && ns != ownNS
}

// sysvAttachments collects the SysV mappings of one process by shmid.
func sysvAttachments(pid int, maps []linux.Mapping) map[int]Attachment {
	out := map[int]Attachment{}
	for _, m := range maps {
		id, ok := sysvShmID(m)
		if !ok {
			continue
		}
		a, seen := out[id]
		if !seen {
			a = Attachment{PID: pid, StartAddr: m.Start, ReadOnly: true}
		}
		a.Mappings++
		a.Bytes += m.SizeBytes()
		a.StartAddr = min(a.StartAddr, m.Start)
		a.ReadOnly = a.ReadOnly && (len(m.Perms) < 2 || m.Perms[1] != 'w')
		a.PageSizeBytes = max(a.PageSizeBytes, m.PageSizeBytes)
		out[id] = a
	}
	return out
}
