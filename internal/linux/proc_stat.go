package linux

import (
	"github.com/dbmem/dbmem/internal/units"

	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Stat is the part of /proc/PID/stat dbmem uses.
type Stat struct {
	PID   int    `json:"pid"`
	Comm  string `json:"comm"`
	State string `json:"state"`
	PPid  int    `json:"ppid"`
	// MinFlt and MajFlt count page faults (minor: no I/O).
	MinFlt uint64 `json:"min_flt"`
	MajFlt uint64 `json:"maj_flt"`
	// CMinFlt and CMajFlt count the page faults of the children the
	// process has waited for (a postmaster waits for every backend, so
	// they count its backends' faults to their last page).
	CMinFlt uint64 `json:"cmin_flt"`
	CMajFlt uint64 `json:"cmaj_flt"`
	// StartTicks is the start time in clock ticks since boot; with the PID it
	// identifies a process across PID reuse.
	StartTicks uint64 `json:"start_ticks"`
}

// ReadStat reads /proc/PID/stat under fs.
func ReadStat(fs FS, pid int) (Stat, error) {
	b, err := readProcFile(fs, pid, "stat")
	if err != nil {
		return Stat{}, err
	}
	return parseStat(string(b))
}

// parseStat parses the one line of /proc/PID/stat. The command name is in
// parentheses and may itself contain spaces and parentheses, so it ends at
// the last ')'.
func parseStat(s string) (Stat, error) {
	open := strings.IndexByte(s, '(')
	end := strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Stat{}, fmt.Errorf("stat %q: no (comm)", units.Trunc(s, 60))
	}
	pid, err := strconv.Atoi(strings.TrimSpace(s[:open]))
	if err != nil {
		return Stat{}, fmt.Errorf("stat: pid %q: %w", s[:open], err)
	}
	f := strings.Fields(s[end+1:])
	// f[0] is field 3 (state); starttime is field 22 -> f[19].
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("stat of pid %d: %d fields after comm, want at least 20", pid, len(f))
	}
	st := Stat{PID: pid, Comm: s[open+1 : end], State: f[0]}
	st.PPid, err = strconv.Atoi(f[1])
	if err == nil {
		st.MinFlt, err = strconv.ParseUint(f[7], 10, 64)
	}
	if err == nil {
		st.CMinFlt, err = strconv.ParseUint(f[8], 10, 64)
	}
	if err == nil {
		st.MajFlt, err = strconv.ParseUint(f[9], 10, 64)
	}
	if err == nil {
		st.CMajFlt, err = strconv.ParseUint(f[10], 10, 64)
	}
	if err == nil {
		st.StartTicks, err = strconv.ParseUint(f[19], 10, 64)
	}
	if err != nil {
		return Stat{}, fmt.Errorf("stat of pid %d: %w", pid, err)
	}
	return st, nil
}

// ReadCmdline reads /proc/PID/cmdline: the arguments, or for a process that
// rewrote its title (PostgreSQL backends), the title as one string. Its
// owner chose it: at most MaxCmdlineBytes are read, and a command line cut
// there ends with the argument CutMark.
func ReadCmdline(fs FS, pid int) ([]string, error) {
	b, cut, err := fs.ReadFileCut(fs.ProcPath(strconv.Itoa(pid), "cmdline"), MaxCmdlineBytes)
	if err != nil {
		return nil, err
	}
	args := parseCmdline(b)
	if cut {
		args = append(args, CutMark)
	}
	return args, nil
}

// CutMark ends a command line cut at MaxCmdlineBytes.
const CutMark = "[cut at 64 KiB]"

func parseCmdline(b []byte) []string {
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return nil
	}
	parts := bytes.Split(b, []byte{0})
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = string(p)
	}
	return out
}

// ReadOOM reads /proc/PID/oom_score and oom_score_adj.
func ReadOOM(fs FS, pid int) (score, adj *int, err error) {
	s, err := readProcInt(fs, pid, "oom_score")
	if err != nil {
		return nil, nil, err
	}
	a, err := readProcInt(fs, pid, "oom_score_adj")
	if err != nil {
		return &s, nil, err
	}
	return &s, &a, nil
}

func readProcInt(fs FS, pid int, name string) (int, error) {
	b, err := readProcFile(fs, pid, name)
	if err != nil {
		return 0, err
	}
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, fmt.Errorf("parse %s: %w", fs.Display(fs.ProcPath(strconv.Itoa(pid), name)), err)
	}
	return v, nil
}

// ReadLink reads a /proc/PID symlink such as cwd or exe.
func ReadLink(fs FS, pid int, name string) (string, error) {
	return fs.Readlink(fs.ProcPath(strconv.Itoa(pid), name)) // its error names the link
}

// ListPIDs returns the numeric entries of the procfs root.
func ListPIDs(fs FS) ([]int, error) {
	ents, err := fs.ReadDir(fs.Proc)
	if err != nil {
		return nil, err // it names the directory
	}
	var pids []int
	for _, e := range ents {
		if pid, err := strconv.Atoi(e); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}

// ReadComm reads /proc/PID/comm: the process name (at most 15 bytes), as
// the kernel keeps it.
func ReadComm(fs FS, pid int) (string, error) {
	b, err := readProcFile(fs, pid, "comm")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}
