package advise

import (
	"cmp"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// checkOvercommitMode: vm.overcommit_memory 0 or 1 on a database host,
// and why strict overcommit is not advised where it is not (software that
// needs overcommit, a pod, Committed_AS or the pools); Redis under mode 2.
func checkOvercommitMode(h host) []finding.Finding {
	mode, ok := h.Sysctls.Int("vm.overcommit_memory")
	if !h.need("overcommit.mode", "host", have(inOvercommit, ok)) {
		return nil
	}
	if h.Env.InContainer {
		return nodeSettings(h, mode)
	}
	cs := OvercommitConflicts(h.Software)
	if mode == 2 {
		return strictBreaks(h, cs)
	}
	names := map[int64]string{0: "heuristic", 1: "always"}
	m := h.Meminfo
	f := finding.Finding{
		ID: "overcommit.mode", Severity: finding.Notice, Subject: "host",
		Title: fmt.Sprintf("vm.overcommit_memory=%d (%s): a runaway query is OOM-killed instead of refused", mode, names[mode]),
		Evidence: []finding.Evidence{
			ev("vm.overcommit_memory", strconv.FormatInt(mode, 10), srcSysctl),
			ev("Committed_AS", bytesOf(m.CommittedASBytes), srcMeminfo),
			ev("CommitLimit", bytesOf(m.CommitLimitBytes)+" (not enforced)", srcMeminfo),
		},
		Why: "Without strict accounting the kernel grants more memory than exists; when a backend touches it " +
			"the OOM killer sends SIGKILL and the postmaster restarts every session (crash recovery).",
		Fix: "On a dedicated database host set vm.overcommit_memory=2 with the vm.overcommit_ratio from `dbmem plan` " +
			"(never when Committed_AS exceeds the new CommitLimit, and not on Kubernetes nodes or hosts with JVMs).",
	}
	if mode == 1 {
		f.Severity = finding.Warning
	}
	if !h.Dedicated {
		f.Severity = finding.Info
	}
	if !whyNotStrict(h, &f, mode, cs) {
		poolsFirst(h, &f)
	}
	return []finding.Finding{f}
}

// poolsFirst says, where strict overcommit is advised with pools smaller
// than today's (poolsPlanned), that the pool shrinks first: the ratio is
// computed for the smaller pool, and beside today's its CommitLimit would
// be under what is committed.
func poolsFirst(h host, f *finding.Finding) {
	today, _ := h.poolsNow()
	if planned, _, text := h.poolsPlanned(); planned < today {
		f.Evidence = append(f.Evidence, ev(afterPlan, text, "computed"))
		f.Fix = "Shrink vm.nr_hugepages first, as `dbmem plan` does (the ratio is computed for the smaller pools); then, on a dedicated database host, " +
			strings.TrimPrefix(f.Fix, "On a dedicated database host ")
	}
}

// whyNotStrict turns the overcommit finding into an info saying why strict
// overcommit is not advised here, as plan does: software that needs
// overcommit runs (named, with the alternative), Committed_AS is already
// above the reserve's CommitLimit, or the pools leave no ratio that keeps
// the reserve.
func whyNotStrict(h host, f *finding.Finding, mode int64, cs []Conflict) bool {
	name := map[int64]string{0: "heuristic", 1: "always"}[mode]
	head := fmt.Sprintf("vm.overcommit_memory=%d (%s): ", mode, name)
	if len(cs) > 0 {
		f.Severity = finding.Info
		f.Title = head + "strict overcommit is not advised here, " + conflictNames(cs) + " would break"
		for _, c := range cs {
			f.Evidence = append(f.Evidence, ev(c.Software.String(), c.Why, softwareSource(c.Software)))
		}
		f.Why = "Strict accounting is host-wide: it would refuse what this software needs. Without it a runaway query is " +
			"OOM-killed instead of refused, so the databases must be bounded another way."
		f.Fix = overcommitAlternative(cs)
		return true
	}
	if why, none := noRatio(h); none {
		f.Severity = finding.Info
		f.Title = head + "no strict overcommit keeps the page-cache reserve here"
		f.Evidence = append(f.Evidence, ev("no valid vm.overcommit_ratio", why, "computed"))
		f.Fix = "Bound the databases instead: a memory limit per service (systemd MemoryMax=), their own caps (PGA_AGGREGATE_LIMIT, " +
			"work_mem x max_connections within RAM), and OOMScoreAdjust for the processes that must survive."
		return true
	}
	if why, over := committedOverReserve(h); over {
		f.Severity = finding.Info
		f.Title = head + "strict overcommit cannot be switched on now"
		f.Evidence = append(f.Evidence, ev("CommitLimit keeping the page-cache reserve", why, "computed"))
		f.Fix = "Bring what is committed down first (smaller buffers, fewer connections: a pooler); until then bound the databases " +
			"with a memory limit per service (systemd MemoryMax=) and OOMScoreAdjust for the processes that must survive."
		return true
	}
	return false
}

// noRatio reports that swap and the huge page pools the host needs
// (poolsPlanned) take so much of RAM that no vm.overcommit_ratio keeps
// DefaultReserve for the page cache (an Oracle host with 82% of RAM in
// its SGA's pool), with the arithmetic.
func noRatio(h host) (string, bool) {
	m := h.Meminfo
	if m.MemTotalBytes == nil || m.SwapTotalBytes == nil {
		return "", false
	}
	pools, _, text := h.poolsPlanned()
	_, formula, ok := OvercommitRatio(h.RAM, *m.SwapTotalBytes, pools, DefaultReserve)
	if text != "" {
		formula += "; " + afterPlan + ": " + text
	}
	return formula, !ok
}

// committedOverReserve reports that Committed_AS (less the shared memory
// that moves into the pool) is above the CommitLimit the page-cache
// reserve allows with the pools the host needs: mode 2 would make fork
// and malloc fail at once, as plan says.
func committedOverReserve(h host) (string, bool) {
	m := h.Meminfo
	if m.MemTotalBytes == nil || m.SwapTotalBytes == nil || m.CommittedASBytes == nil {
		return "", false
	}
	pools, moving, text := h.poolsPlanned()
	ratio, _, ok := OvercommitRatio(h.RAM, *m.SwapTotalBytes, pools, DefaultReserve)
	if !ok {
		return "", false
	}
	limit, after := CommitLimit(h.RAM, *m.SwapTotalBytes, pools, ratio), units.Sub(*m.CommittedASBytes, moving)
	why := fmt.Sprintf("%s at ratio %d, under Committed_AS %s: switching to mode 2 would make fork and malloc fail",
		units.Bytes(limit), ratio, units.Bytes(after))
	if text != "" {
		why += "; " + afterPlan + ": " + text
	}
	return why, after > limit
}

// afterPlan names the pools strict overcommit is judged with when they
// are not today's.
const afterPlan = "huge page pools after this plan"

// poolsPlanned is every host-wide huge page pool after dbmem plan, in
// bytes, and the shared memory now in base pages that moves into it (it
// then leaves Committed_AS): plan's own guardPool, poolsAfter and
// movingToHuge on planInput. Strict overcommit is judged with it in check
// as in plan (one snapshot, one verdict): a ratio sized for a pool the
// same report says must change would not keep the reserve once it does.
// text says what they are and today's pools when they differ.
func (h host) poolsPlanned() (bytes, moving uint64, text string) {
	in := h.planInput()
	var hp *HugePagePlan
	in.Instances, hp = guardPool(in)
	bytes, _ = poolsAfter(in, hp)
	if today, todayText := h.poolsNow(); bytes != today {
		text = fmt.Sprintf("%s, as dbmem plan sizes vm.nr_hugepages (today %s)", units.Bytes(bytes), cmp.Or(todayText, "none"))
	}
	return bytes, movingToHuge(in, hp != nil), text
}

// planInput is the host as plan's pool step reads it, from what check
// knows without asking a server: each trusted PostgreSQL instance whose
// need at the default page size was read (SHOW or its mapping), the pages
// it holds and its shared memory in base pages. MySQL/MariaDB servers'
// pages count as in use by others.
func (h host) planInput() PlanInput {
	size, sized := h.DefaultPageSize()
	in := PlanInput{Host: HostFacts{RAMBytes: h.RAM, DefaultHugePageBytes: size, Now: &HostNow{Pools: h.HugePools}}}
	in.Options = withPlanDefaults(in)
	for _, v := range h.Instances {
		if sized && v.my != nil && v.Untrusted == "" {
			in.Instances = append(in.Instances, PlanMySQL(v.my, size, basePage))
			continue
		}
		if !sized || v.my != nil || v.Untrusted != "" || v.NeedPages == 0 || v.Shared == nil {
			continue
		}
		pi := PlannedInstance{Subject: v.Subject, Need: HugePageNeed{PageSizeBytes: size, Pages: v.NeedPages, SharedBytes: v.Shared.Bytes, Exact: true}}
		if !v.Shared.Hugetlb {
			pi.SharedIn4KBytes = v.Shared.Bytes
		} else if v.Shared.PageSize == size {
			pi.HeldPages = v.Shared.Bytes / size
		}
		in.Instances = append(in.Instances, pi)
	}
	return in
}

// strictBreaks flags strict overcommit on a host where Redis runs: its
// background save forks the dataset and fails. (JVMs and Erlang VMs that
// already run got their reservations.)
func strictBreaks(h host, cs []Conflict) []finding.Finding {
	for _, c := range cs {
		if c.Software.Kind != cohost.Redis {
			continue
		}
		return []finding.Finding{{ID: "overcommit.mode", Severity: finding.Warning, Subject: "host",
			Title:    "vm.overcommit_memory=2 with " + c.Software.String() + ": its background save fails",
			Evidence: []finding.Evidence{ev("vm.overcommit_memory", "2", srcSysctl), ev(c.Software.String(), c.Why, softwareSource(c.Software))},
			Why:      "Redis forks to save (BGSAVE, AOF rewrite); the child is charged the whole dataset under strict accounting, so the fork fails and nothing is saved.",
			Fix: "Set vm.overcommit_memory=1 as Redis asks (or move Redis to another host), and bound the databases instead: " +
				"OOMScoreAdjust=-1000 for the postmaster, a memory limit per service (systemd MemoryMax=), work_mem x max_connections within RAM.",
		}}
	}
	return nil
}

// nodeSettings is said once inside a container: the kernel's settings and
// the huge page pool belong to the node (/proc/sys is read-only in a pod).
func nodeSettings(h host, mode int64) []finding.Finding {
	pool := "none"
	if p, ok := h.DefaultPool(); ok {
		pool = poolText(p)
	}
	return []finding.Finding{{ID: "overcommit.mode", Severity: finding.Info, Subject: "host",
		Title: "dbmem runs in a container: overcommit, swappiness, THP and the huge page pool are the node's settings",
		Evidence: []finding.Evidence{
			ev("vm.overcommit_memory", strconv.FormatInt(mode, 10), srcSysctl+" (the node's)"),
			ev("/proc/sys read-only", strconv.FormatBool(h.Env.SysctlsReadOnly), "/proc/self/mountinfo"),
			ev("huge page pool (the node's)", pool, srcPools),
		},
		Why: "A container shares the node's kernel: these settings apply to every pod and are set on the node (kubelet owns " +
			"vm.overcommit_memory there). The pod's own bounds are its cgroup limits: memory.max and hugetlb.<size>.max.",
		Fix: "Judge the pod by its limits (the container findings); change kernel settings on the node, for every pod.",
	}}
}
