package archetype

import (
	"fmt"
	"strconv"
	"strings"
)

// proc is one process to write under proc/PID.
type proc struct {
	pid, ppid       int
	comm            string
	args            []string
	uid, gid        int
	anonKB, fileKB  uint64
	shmemKB, swapKB uint64
	hugetlbKB       uint64
	vmSizeKB        uint64
	pssAnonKB       *uint64
	threads, adj    int
	cgroup          string
	maps            []mapping
	smaps           bool
	memlock         string // kB, "unlimited" or "" (8 MiB, the systemd default)
}

// mapping is one line of maps (and entry of smaps).
type mapping struct {
	start, sizeKB         uint64
	perms, path           string
	inode, pageKB         uint64
	rssKB, anonKB         uint64
	sharedHugeKB, privHKB uint64
	flags                 string
}

// pteKB is the page tables of the process: 8 bytes per base page mapped
// (resident), at least 100 kB for the binary and libraries.
func (s Spec) pteKB(p proc) uint64 {
	base := s.basePageKB()
	resident := p.anonKB + p.fileKB + p.shmemKB
	return 100 + resident/base*8/1024
}

func (s Spec) writeProc(t Tree, p proc) {
	d := fmt.Sprintf("proc/%d/", p.pid)
	t[d+"stat"] = s.statLine(p)
	t[d+"status"] = s.status(p)
	t[d+"cmdline"] = strings.Join(p.args, "\x00") + "\x00"
	t[d+"oom_score_adj"] = fmt.Sprintf("%d\n", p.adj)
	t[d+"oom_score"] = fmt.Sprintf("%d\n", s.oomScore(p))
	t[d+"cgroup"] = orDefault(p.cgroup, "0::/system.slice/"+p.comm+".service") + "\n"
	t[d+"limits"] = limits(p.memlock)
	t[d+"maps"] = s.maps(p)
	if kernelAtLeast(s.Kernel, 4, 14) {
		t[d+"smaps_rollup"] = s.rollup(p)
	}
	if p.smaps {
		t[d+"smaps"] = s.smaps(p)
	}
}

func (s Spec) statLine(p proc) string {
	rssPages := (p.anonKB + p.fileKB + p.shmemKB) / s.basePageKB()
	return fmt.Sprintf("%d (%s) S %d %d %d 0 -1 4194560 %d 0 %d 0 120 45 0 0 20 0 %d 0 %d %d %d 18446744073709551615 "+
		"4194304 4198400 140733000000000 0 0 0 0 4096 16384 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		p.pid, p.comm, p.ppid, p.pid, p.pid, 1000+p.pid%977, p.pid%13, max(p.threads, 1), 100000+p.pid, s.vmSize(p)*1024, rssPages)
}

func (s Spec) vmSize(p proc) uint64 {
	if p.vmSizeKB > 0 {
		return p.vmSizeKB
	}
	v := p.anonKB + p.fileKB + 120000
	for _, m := range p.maps {
		v += m.sizeKB
	}
	return v
}

func (s Spec) status(p proc) string {
	rss := p.anonKB + p.fileKB + p.shmemKB
	var b strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&b, "%s:\t%s\n", k, v) }
	kb := func(k string, v uint64) { kv(k, fmt.Sprintf("%8d kB", v)) }
	kv("Name", p.comm)
	kv("Umask", "0077")
	kv("State", "S (sleeping)")
	kv("Tgid", strconv.Itoa(p.pid))
	kv("Ngid", "0")
	kv("Pid", strconv.Itoa(p.pid))
	kv("PPid", strconv.Itoa(p.ppid))
	kv("TracerPid", "0")
	kv("Uid", fmt.Sprintf("%d\t%d\t%d\t%d", p.uid, p.uid, p.uid, p.uid))
	kv("Gid", fmt.Sprintf("%d\t%d\t%d\t%d", p.gid, p.gid, p.gid, p.gid))
	kv("FDSize", "128")
	kv("Groups", strconv.Itoa(p.gid))
	kb("VmPeak", s.vmSize(p))
	kb("VmSize", s.vmSize(p))
	kb("VmLck", 0)
	kb("VmPin", 0)
	kb("VmHWM", rss)
	kb("VmRSS", rss)
	if kernelAtLeast(s.Kernel, 4, 5) {
		kb("RssAnon", p.anonKB)
		kb("RssFile", p.fileKB)
		kb("RssShmem", p.shmemKB)
	}
	kb("VmData", p.anonKB+4096)
	kb("VmStk", 132)
	kb("VmExe", 5332)
	kb("VmLib", 16236)
	kb("VmPTE", s.pteKB(p))
	kb("VmSwap", p.swapKB)
	if kernelAtLeast(s.Kernel, 4, 4) {
		kb("HugetlbPages", p.hugetlbKB)
	}
	kv("Threads", strconv.Itoa(max(p.threads, 1)))
	kv("CapEff", "0000000000000000")
	kv("Cpus_allowed_list", fmt.Sprintf("0-%d", max(s.nodes()*2-1, 1)))
	kv("Mems_allowed_list", fmt.Sprintf("0-%d", s.nodes()-1))
	return b.String()
}

// oomScore is the kernel's: badness = rss + swap + page-table pages +
// adj x totalpages / 1000; oom_score = (1000 + badness x 1000 / totalpages)
// x 2 / 3 since 5.9, badness x 1000 / totalpages before.
func (s Spec) oomScore(p proc) int64 {
	if p.adj == -1000 {
		return 0
	}
	base := s.basePageKB()
	total := int64((s.Meminfo["MemTotal"] + s.Meminfo["SwapTotal"]) / base)
	if total == 0 {
		return 0
	}
	points := int64((p.anonKB+p.fileKB+p.shmemKB+p.swapKB)/base) + int64(s.pteKB(p)*1024/(base*1024))
	points += int64(p.adj) * total / 1000
	if kernelAtLeast(s.Kernel, 5, 9) {
		return (1000 + points*1000/total) * 2 / 3
	}
	if points <= 0 {
		return 0
	}
	return min(points*1000/total, 1000)
}

func limits(memlock string) string {
	lock := "8388608              8388608              bytes"
	switch {
	case memlock == "unlimited":
		lock = "unlimited            unlimited            bytes"
	case memlock != "":
		kb, _ := strconv.ParseUint(memlock, 10, 64)
		lock = fmt.Sprintf("%-20d %-20d bytes", kb*1024, kb*1024)
	}
	return "Limit                     Soft Limit           Hard Limit           Units     \n" +
		"Max cpu time              unlimited            unlimited            seconds   \n" +
		"Max stack size            8388608              unlimited            bytes     \n" +
		"Max open files            65536                65536                files     \n" +
		"Max locked memory         " + lock + "     \n" +
		"Max address space         unlimited            unlimited            bytes     \n"
}
