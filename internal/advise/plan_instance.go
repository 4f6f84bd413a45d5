package advise

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/units"
)

// instanceSettings are the engine's own settings, its service's and its
// container's.
func instanceSettings(in PlanInput, pi PlannedInstance, hp *HugePagePlan, r *PlanResult) []finding.Setting {
	var out []finding.Setting
	switch {
	case pi.MySQL != nil:
		out = append(out, mysqlSettings(pi, hp)...)
	case pi.Engine.Name == finding.EnginePostgres:
		out = append(out, postgresSettings(in, pi, hp)...)
		switch {
		case pi.NoUnit != "" && !in.InContainer && pi.Container == "":
			r.Notes = append(r.Notes, withoutUnit(pi)) // plan_nounit.go
		case !in.InContainer && pi.Container == "":
			out = append(out, oomSettings(pi.Unit)...)
		default:
			r.Notes = append(r.Notes, pi.Subject+": in a container there is no systemd unit for OOMScoreAdjust: kubelet sets oom_score_adj "+
				"from the QoS class (Guaranteed, requests = limits for memory and cpu: -997), and PostgreSQL's children keep it unless "+
				"PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj and PG_OOM_ADJUST_VALUE=0 are in the container's environment")
		}
	}
	if hp != nil && pi.hugeAPI() == HugeSysV {
		out = append(out, sysvSettings(in, pi, hp, r)...)
	}
	if hp != nil && in.Options.Kubernetes {
		out = append(out, kubernetesSettings(pi, hp)...)
	}
	return out
}

func postgresSettings(in PlanInput, pi PlannedInstance, hp *HugePagePlan) []finding.Setting {
	var out []finding.Setting
	for _, name := range sortedKeys(pi.Changes) {
		out = append(out, pgSetting(pi.Unit, name, pi.Changes[name], pi.Current[name], pi.Changes[name]+" (asked for)", "the planned configuration the pool is sized for"))
	}
	if hp == nil {
		return out
	}
	out = append(out, pgSetting(pi.Unit, "huge_pages", "on", pi.Current["huge_pages"], "on",
		"start only with the shared memory in huge pages; try would fall back to 4 KiB pages silently"))
	if hp.PageSizeBytes != defaultHugePage(in) || pi.Current["huge_page_size"] != "" && pi.Current["huge_page_size"] != "0" {
		if pi.Engine.Major == 0 || pi.Engine.Major >= 14 {
			v := PageSizeName(hp.PageSizeBytes, "postgres")
			out = append(out, pgSetting(pi.Unit, "huge_page_size", v, pi.Current["huge_page_size"], v, "the planned page size (PostgreSQL 14+)"))
		}
	}
	if pi.Current["shared_memory_type"] == "sysv" {
		out = append(out, pgSetting(pi.Unit, "shared_memory_type", "mmap", "sysv", "mmap", "PostgreSQL uses huge pages only for an mmap segment"))
	}
	return out
}

// sysvSettings let an engine using SHM_HUGETLB get its pages: the group
// that may create the segments, the memlock limit MySQL's and Oracle's
// documentation ask for, and (MySQL) kernel.shmmax and kernel.shmall.
func sysvSettings(in PlanInput, pi PlannedInstance, hp *HugePagePlan, r *PlanResult) []finding.Setting {
	seg := pagesAt(pi.Need, hp.PageSizeBytes) * hp.PageSizeBytes
	var out []finding.Setting
	if pi.Unit != "" {
		out = append(out, systemdSetting(pi.Unit, "LimitMEMLOCK", "infinity", fmt.Sprintf("at least the segments, %s", units.Bytes(seg)),
			"SHM_HUGETLB segments are charged to the memlock limit unless the group is vm.hugetlb_shm_group; limits.conf does not apply to services"))
	} else {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: %s, so no drop-in sets its memlock limit: start it with at least %s of locked memory "+
			"(ulimit -l unlimited in what starts it), or run it under a service unit with LimitMEMLOCK=infinity, and plan again",
			pi.Subject, cmp.Or(pi.NoUnit, "no service unit is known to run it"), units.Bytes(seg)))
	}
	if pi.GID >= 0 {
		out = append(out, sysctlSetting("vm.hugetlb_shm_group", strconv.Itoa(pi.GID), in.current("vm.hugetlb_shm_group"),
			fmt.Sprintf("gid %d of the user %s runs as", pi.GID, pi.Engine.Name),
			"shmget(SHM_HUGETLB) is refused (EPERM) unless the process is in this group or has CAP_IPC_LOCK"))
	} else {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: set vm.hugetlb_shm_group to the gid of the user the server runs as (getent group mysql): "+
			"shmget(SHM_HUGETLB) is refused without it or CAP_IPC_LOCK", pi.Subject))
	}
	if pi.MySQL != nil {
		out = append(out, shmSettings(in, pi, r)...)
	}
	return out
}

// kubernetesSettings are the container resources: huge pages are a resource
// of their own (requests must equal limits), memory is the instance's worst
// case besides them (ContainerMemory, as the kubernetes format renders it).
func kubernetesSettings(pi PlannedInstance, hp *HugePagePlan) []finding.Setting {
	pages := instancePoolPages(pi.Need, *hp)
	huge := pages * hp.PageSizeBytes
	res := "hugepages-" + PageSizeName(hp.PageSizeBytes, "k8s")
	hf := fmt.Sprintf("%d pages x %s (need + margin)", pages, units.Bytes(hp.PageSizeBytes))
	mem, mf := ContainerMemory(instanceWorstCase(pi, hp), true)
	why := "requests equal limits for huge pages (Kubernetes requires it); without a hugepages resource the container cannot map them"
	var out []finding.Setting
	for _, kind := range []string{"requests", "limits"} {
		out = append(out,
			finding.Setting{Target: finding.TargetKubernetes, Name: "resources." + kind + "." + res, Value: Quantity(huge), Formula: hf, Why: why},
			finding.Setting{Target: finding.TargetKubernetes, Name: "resources." + kind + ".memory", Value: Quantity(mem), Formula: mf,
				Why: "memory the container may use besides its huge pages (anon, page tables, page cache it is charged); requests equal limits"})
	}
	return out
}

// ContainerMemory is the worst case a container must hold besides its
// huge pages: private memory and page tables, and the shared memory too
// when it is not in huge pages; at least 256 MiB.
func ContainerMemory(w WorstCase, huge bool) (uint64, string) {
	b := w.PrivateBytes + w.PageTablesBytes
	f := fmt.Sprintf("worst case: %s private + %s page tables", units.Bytes(w.PrivateBytes), units.Bytes(w.PageTablesBytes))
	if !huge {
		b += w.SharedBytes
		f += fmt.Sprintf(" + %s shared memory (not in huge pages)", units.Bytes(w.SharedBytes))
	}
	const floor = 256 * MiB
	if b < floor {
		return floor, f + fmt.Sprintf(" = %s, raised to 256Mi", units.Bytes(b))
	}
	return b, f
}

// instanceWorstCase is the instance's worst case under the plan.
func instanceWorstCase(pi PlannedInstance, hp *HugePagePlan) WorstCase {
	if pi.MySQL != nil {
		return mysqlWorstCase(pi.MySQL, hp)
	}
	return postgresWorstCase(pi, hp)
}

// plannedWorstCase is the instance's worst case once in the planned pages,
// set against the planned CommitLimit.
func plannedWorstCase(in PlanInput, pi PlannedInstance, hp *HugePagePlan, r *PlanResult) InstanceWorstCase {
	iw := InstanceWorstCase{Subject: pi.Subject}
	if pi.MySQL != nil {
		iw.WorstCase, iw.SharedName = mysqlWorstCase(pi.MySQL, hp), "in huge pages"
	} else {
		iw.WorstCase, iw.SharedName = postgresWorstCase(pi, hp), "shared"
		iw.Now, iw.NowBasis = worstCaseNow(pi, hp)
	}
	checkWorstCaseLimits(in, pi, iw.WorstCase, hp, r)
	return iw
}

func postgresWorstCase(pi PlannedInstance, hp *HugePagePlan) WorstCase {
	w := pi.Work
	if pi.Need.SharedBytes > 0 {
		w.SharedBytes = pi.Need.SharedBytes
	}
	if hp != nil {
		w.SharedPageBytes = hp.PageSizeBytes
	} else if w.SharedPageBytes == 0 {
		w.SharedPageBytes = basePage
	}
	return w.WorstCase()
}

// worstCaseNow is the worst case as the instance runs now, when its page
// size or settings differ from the planned ones: dbmem check computes it
// so, and a reader of both must see why the page tables differ.
func worstCaseNow(pi PlannedInstance, hp *HugePagePlan) (*WorstCase, string) {
	if pi.CurrentWork == nil {
		return nil, ""
	}
	w := *pi.CurrentWork
	if w.SharedPageBytes == 0 {
		w.SharedPageBytes = basePage
	}
	if len(pi.Changes) == 0 && (hp == nil || hp.PageSizeBytes == w.SharedPageBytes) {
		return nil, ""
	}
	now := w.WorstCase()
	basis := fmt.Sprintf("as it runs now, shared memory in %s pages", units.Bytes(w.SharedPageBytes))
	if len(pi.Changes) > 0 {
		basis += ", current settings"
	}
	return &now, basis + " (dbmem check's memory.worst_case)"
}

// checkWorstCaseLimits notes a worst case past the planned CommitLimit, or
// past what is left beside the pool when nothing bounds it.
func checkWorstCaseLimits(in PlanInput, pi PlannedInstance, wc WorstCase, hp *HugePagePlan, r *PlanResult) {
	limit := in.Host.RAMBytes
	if hp != nil {
		limit = units.Sub(limit, hp.PoolBytes)
	}
	past := "a query gets \"ERROR: out of memory\" and the instance stays up (that is the point)"
	if pi.MySQL != nil {
		past = "an allocation fails: usually the statement gets an out-of-memory error, though the server aborts where it cannot go on without the memory"
	}
	if op := r.Overcommit; op != nil && wc.PrivateBytes > op.CommitLimitBytes {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: worst-case private memory %s exceeds the planned CommitLimit %s: past it %s",
			pi.Subject, units.Bytes(wc.PrivateBytes), units.Bytes(op.CommitLimitBytes), past))
	} else if r.Overcommit == nil && wc.PrivateBytes+wc.PageTablesBytes > limit {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: worst case %s exceeds the %s left beside huge pages, and nothing bounds it without strict overcommit",
			pi.Subject, units.Bytes(wc.PrivateBytes+wc.PageTablesBytes), units.Bytes(limit)))
	}
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
