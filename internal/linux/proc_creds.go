package linux

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// capIPCLock is the bit of CAP_IPC_LOCK in the capability sets.
const capIPCLock = 14

// Creds are the identity fields of /proc/PID/status: who a process is and
// what it may do (create SHM_HUGETLB segments, lock memory).
type Creds struct {
	UID, EUID   uint32   // real and effective user
	GID, FSGID  uint32   // real and filesystem group (in_group_p checks fsgid)
	Groups      []uint32 // supplementary groups
	CapEff      uint64   // effective capabilities
	HaveCapEff  bool     // false if the status file had no CapEff line
	CommandName string   // Name: (comm, 15 characters at most)
}

// InGroup reports whether the kernel's in_group_p(gid) holds: the fsgid or a
// supplementary group.
func (c Creds) InGroup(gid uint32) bool {
	return c.FSGID == gid || slices.Contains(c.Groups, gid)
}

// CapIPCLock reports CAP_IPC_LOCK in the effective set.
func (c Creds) CapIPCLock() bool { return c.CapEff&(1<<capIPCLock) != 0 }

// ReadCreds reads the credentials in /proc/PID/status.
func ReadCreds(fs FS, pid int) (Creds, error) {
	return readParsed(fs, fs.ProcPath(strconv.Itoa(pid), "status"), ParseCreds)
}

// ParseCreds takes Name, Uid, Gid, Groups and CapEff from the text of
// /proc/PID/status.
func ParseCreds(r io.Reader) (Creds, error) {
	var c Creds
	var haveUID, haveGID bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1024*1024)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		var err error
		switch key {
		case "Name":
			c.CommandName = strings.TrimSpace(val)
		case "Uid":
			haveUID = true
			c.UID, c.EUID, err = idPair(f, 0, 1)
		case "Gid":
			haveGID = true
			c.GID, c.FSGID, err = idPair(f, 0, 3)
		case "Groups":
			c.Groups, err = idList(f)
		case "CapEff":
			c.HaveCapEff = true
			c.CapEff, err = strconv.ParseUint(strings.TrimSpace(val), 16, 64)
		}
		if err != nil {
			return c, fmt.Errorf("%s line: %w", key, err)
		}
	}
	if err := sc.Err(); err != nil {
		return c, err
	}
	if !haveUID || !haveGID {
		return c, fmt.Errorf("no Uid or Gid line: not a /proc/PID/status file")
	}
	return c, nil
}

// idPair returns fields i and j of a Uid/Gid line (real, effective, saved, fs).
func idPair(f []string, i, j int) (uint32, uint32, error) {
	if len(f) != 4 {
		return 0, 0, fmt.Errorf("want 4 ids, got %d", len(f))
	}
	a, err := strconv.ParseUint(f[i], 10, 32)
	if err != nil {
		return 0, 0, err
	}
	b, err := strconv.ParseUint(f[j], 10, 32)
	return uint32(a), uint32(b), err
}

func idList(f []string) ([]uint32, error) {
	out := make([]uint32, 0, len(f))
	for _, s := range f {
		v, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return out, err
		}
		out = append(out, uint32(v))
	}
	return out, nil
}
