package lab

import (
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
)

// meminfo and procStatus read the keys of /proc/meminfo and of a
// process's status (linux.ReadKV); missing keys are an error naming the
// file.
func meminfo(fs linux.FS, keys ...string) (map[string]uint64, error) {
	return linux.ReadKV(fs, fs.ProcPath("meminfo"), keys...)
}

func procStatus(fs linux.FS, pid int, keys ...string) (map[string]uint64, error) {
	return linux.ReadKV(fs, fs.ProcPath(strconv.Itoa(pid), "status"), keys...)
}

// tree is pid and all its descendants alive now.
func tree(fs linux.FS, pid int) []int {
	pids, _ := linux.ListPIDs(fs)
	kids := map[int][]int{}
	for _, p := range pids {
		if st, err := linux.ReadStat(fs, p); err == nil && st.State != "Z" {
			kids[st.PPid] = append(kids[st.PPid], p)
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		out = append(out, kids[out[i]]...)
	}
	return out
}

// sharedSegment is the size of the postmaster's main shared memory
// mapping: the largest shared, writable mapping of a deleted file
// (/dev/zero, /anon_hugepage or a SysV segment).
func sharedSegment(fs linux.FS, pid int) uint64 {
	ms, err := linux.ReadMaps(fs, pid)
	if err != nil {
		return 0
	}
	var top uint64
	for _, m := range ms {
		if m.Shared() && strings.Contains(m.Perms, "w") && (strings.HasSuffix(m.Path, "(deleted)") || strings.HasPrefix(m.Path, "/SYSV")) {
			top = max(top, m.SizeBytes())
		}
	}
	return top
}

// committedBy estimates what processes have committed in the kernel's
// accounting: their private writable memory (VmData + VmStk), plus the
// shared segment, counted once.
func committedBy(fs linux.FS, pids []int, shared uint64) uint64 {
	total := shared
	for _, p := range pids {
		if m, err := procStatus(fs, p, "VmData", "VmStk"); err == nil {
			total += m["VmData"] + m["VmStk"]
		}
	}
	return total
}

// othersOutside lists the processes with memory that are not in skip:
// their private memory (RssAnon + VmSwap).
func othersOutside(fs linux.FS, skip map[int]bool) []OtherProcess {
	pids, _ := linux.ListPIDs(fs)
	var out []OtherProcess
	for _, p := range pids {
		if skip[p] {
			continue
		}
		m, _ := procStatus(fs, p, "RssAnon", "VmSwap") // VmSwap may be absent
		if _, ok := m["RssAnon"]; !ok {
			continue // a kernel thread, or gone
		}
		st, err := linux.ReadStat(fs, p)
		if err != nil {
			continue
		}
		out = append(out, OtherProcess{PID: p, Name: st.Comm, PrivateBytes: m["RssAnon"] + m["VmSwap"]})
	}
	return out
}
