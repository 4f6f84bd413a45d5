package hostchange

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/units"
)

// checkValue says why writing value to s back on this host is refused
// ("" when it may be written): the setting's Rule, then what the host
// accepts: a word the choice file offers, a huge page pool that leaves a
// tenth of RAM (at least 1 GiB) outside the pools, strict overcommit or a
// lower commit ratio under it only with a tenth of RAM above Committed_AS,
// a vm.hugetlb_shm_group that exists, SysV limits only raised. A journal
// is written before each change, so the value to put back is what the
// host held; these checks stop a damaged or forged journal from making
// the host worse.
func checkValue(fs linux.FS, s Setting, value string) string {
	if why := Allowed(s, value); why != "" {
		return why
	}
	cur, _ := Read(s.Path(fs))
	switch {
	case s.Target == TargetSysfs && strings.Contains(s.Name, "/transparent_hugepage/"):
		return offered(cur, value)
	case IsPool(s) || s == Sysctl("vm.nr_overcommit_hugepages"):
		return poolFits(fs, s, cur, value)
	case s == Sysctl("vm.overcommit_memory") && value == "2" && linux.SelectedWord(cur) != "2":
		return commitHeadroom(fs, nil)
	case (s == Sysctl("vm.overcommit_ratio") || s == Sysctl("vm.overcommit_kbytes")) && strict(fs):
		return commitHeadroom(fs, &pending{s, value})
	case s == Sysctl("vm.hugetlb_shm_group"):
		return groupExists(fs, value)
	case s == Sysctl("kernel.shmmax") || s == Sysctl("kernel.shmall"):
		if n, c := atou(value), atou(cur); n < c {
			return fmt.Sprintf("%s would go down from %s to %s: a lower limit can stop a database from creating its segment", s, cur, value)
		}
	}
	return ""
}

// pending is a setting with the value it would get.
type pending struct {
	Setting
	Value string
}

func atou(s string) uint64 {
	n, _ := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	return n
}

func offered(cur, value string) string {
	for _, w := range strings.Fields(cur) {
		if strings.Trim(w, "[]") == value {
			return ""
		}
	}
	return fmt.Sprintf("%q is not a word the file offers (%s)", value, cur)
}

// poolFits refuses to grow a pool past MemTotal less the reserve.
func poolFits(fs linux.FS, s Setting, cur, value string) string {
	pages, now := atou(value), atou(cur)
	if pages <= now {
		return ""
	}
	m, err := linux.ReadMeminfo(fs)
	if err != nil || m.MemTotalBytes == nil || m.HugepagesizeBytes == nil {
		return fmt.Sprintf("cannot check that %d pages leave enough RAM: %s lacks MemTotal or Hugepagesize", pages, fs.ProcPath("meminfo"))
	}
	size := *m.HugepagesizeBytes
	for _, part := range strings.Split(s.Name, "/") {
		if kb, ok := strings.CutPrefix(part, "hugepages-"); ok {
			size = atou(strings.TrimSuffix(kb, "kB")) << 10
		}
	}
	total := *m.MemTotalBytes
	reserve := max(total/10, units.GiB)
	if size == 0 || pages > (total-min(reserve, total))/size {
		return fmt.Sprintf("%d pages of %s would leave less than %s of %s RAM outside the pool", pages, units.Bytes(size), units.Bytes(reserve), units.Bytes(total))
	}
	return ""
}

// strict reports whether strict overcommit is on.
func strict(fs linux.FS) bool {
	v, err := Read(Sysctl("vm.overcommit_memory").Path(fs))
	return err == nil && v == "2"
}

// commitHeadroom refuses when CommitLimit (as it is, or after change)
// would be under Committed_AS plus a tenth of RAM and lower than now.
func commitHeadroom(fs linux.FS, change *pending) string {
	m, err := linux.ReadMeminfo(fs)
	if err != nil || m.MemTotalBytes == nil || m.CommitLimitBytes == nil || m.CommittedASBytes == nil || m.SwapTotalBytes == nil {
		return fmt.Sprintf("cannot check the commit headroom: %s lacks MemTotal, SwapTotal, CommitLimit or Committed_AS", fs.ProcPath("meminfo"))
	}
	limit, need := *m.CommitLimitBytes, *m.CommittedASBytes+*m.MemTotalBytes/10
	if change != nil {
		next := atou(change.Value) << 10
		if change.Name == "vm.overcommit_ratio" {
			var huge uint64
			if m.HugetlbBytes != nil {
				huge = *m.HugetlbBytes
			}
			next = (*m.MemTotalBytes - min(huge, *m.MemTotalBytes)) / 100 * atou(change.Value)
		}
		if next += *m.SwapTotalBytes; next >= limit {
			return ""
		}
		limit = next
	}
	if limit < need {
		return fmt.Sprintf("strict overcommit with a CommitLimit of %s would leave less than a tenth of RAM above Committed_AS (%s)",
			units.Bytes(limit), units.Bytes(*m.CommittedASBytes))
	}
	return ""
}

// groupExists accepts 0 or a gid of the host's /etc/group.
func groupExists(fs linux.FS, gid string) string {
	if gid == "0" {
		return ""
	}
	b, err := fs.ReadFile(fs.HostPath("/etc/group"))
	if err != nil {
		return fmt.Sprintf("cannot check group %s: %v", gid, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if f := strings.Split(sc.Text(), ":"); len(f) >= 3 && f[2] == gid {
			return ""
		}
	}
	return fmt.Sprintf("gid %s is not a group of /etc/group", gid)
}
