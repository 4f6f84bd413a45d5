package advise

import (
	"fmt"
	"strconv"

	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/postgres"
)

// postgresChecks are the checks only PostgreSQL needs.
func postgresChecks(h host, in *postgres.Instance) []finding.Finding {
	var out []finding.Finding
	out = append(out, checkPostmasterOOM(h, in)...)
	out = append(out, checkChildrenOOM(h, in)...)
	out = append(out, checkHugePagesTry(h, in)...)
	out = append(out, checkSysVHuge(in)...)
	return out
}

// ProtectedAdj is the oom_score_adj from which a postmaster counts as
// protected (Debian's pg_ctlcluster sets -900, the documentation -1000).
const ProtectedAdj = -900

func checkPostmasterOOM(h host, in *postgres.Instance) []finding.Finding {
	pm, ok := in.Postmaster()
	if !ok || !h.need("oom.postmaster_unprotected", PostgresSubject(in), known(inPostmasterAdj, pm.OOMScoreAdj)) || *pm.OOMScoreAdj <= ProtectedAdj {
		return nil
	}
	return []finding.Finding{unitless(in, finding.Finding{
		ID: "oom.postmaster_unprotected", Severity: finding.Notice, Subject: PostgresSubject(in),
		Title:    fmt.Sprintf("postmaster %d has oom_score_adj %d: the OOM killer may kill it", pm.PID, *pm.OOMScoreAdj),
		Evidence: []finding.Evidence{ev("postmaster oom_score_adj", strconv.Itoa(*pm.OOMScoreAdj), fmt.Sprintf("/proc/%d/oom_score_adj", pm.PID)), ev("oom_score", intOf(pm.OOMScore), fmt.Sprintf("/proc/%d/oom_score", pm.PID))},
		Why: "If the postmaster itself is killed the instance is gone until someone restarts it; the PostgreSQL " +
			"documentation starts it with oom_score_adj -1000.",
		Fix:      "Start the service with OOMScoreAdjust=-1000 and PG_OOM_ADJUST_FILE/PG_OOM_ADJUST_VALUE so children stay killable.",
		Settings: oomSettings(in.Unit),
	})}
}

func checkChildrenOOM(h host, in *postgres.Instance) []finding.Finding {
	pm, ok := in.Postmaster()
	if !ok || !h.need("oom.children_protected", PostgresSubject(in), known(inPostmasterAdj, pm.OOMScoreAdj)) || *pm.OOMScoreAdj >= 0 {
		return nil
	}
	n, total := 0, 0
	for _, p := range in.Processes {
		if p.Role == postgres.RolePostmaster || p.OOMScoreAdj == nil {
			continue
		}
		total++
		if *p.OOMScoreAdj == *pm.OOMScoreAdj {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	sev := finding.Warning
	return []finding.Finding{unitless(in, finding.Finding{
		ID: "oom.children_protected", Severity: sev, Subject: PostgresSubject(in),
		Title:    fmt.Sprintf("%d of %d child processes inherit the postmaster's oom_score_adj %d", n, total, *pm.OOMScoreAdj),
		Evidence: []finding.Evidence{ev("postmaster oom_score_adj", strconv.Itoa(*pm.OOMScoreAdj), "/proc/PID/oom_score_adj"), ev("children with the same value", strconv.Itoa(n), "/proc/PID/oom_score_adj")},
		Why: "Protected backends are not the OOM killer's choice even when one of them is the runaway query: it kills " +
			"other processes instead (sshd, the monitoring agent), or at -1000 nothing of PostgreSQL at all.",
		Fix:      "Set PG_OOM_ADJUST_FILE=/proc/self/oom_score_adj and PG_OOM_ADJUST_VALUE=0 in the service environment.",
		Settings: childOOMSettings(in.Unit),
	})}
}

func checkHugePagesTry(h host, in *postgres.Instance) []finding.Finding {
	if in.Settings.String("huge_pages") != "try" ||
		!h.need("hugepages.try", PostgresSubject(in), have(inSharedSegment, in.Shared != nil)) || !in.Shared.Hugetlb {
		return nil
	}
	return []finding.Finding{{
		ID: "hugepages.try", Severity: finding.Notice, Subject: PostgresSubject(in),
		Title:    "huge pages in use, but huge_pages=try would fall back silently next time",
		Evidence: []finding.Evidence{pgEvidence(in, "huge_pages"), ev("main shared mapping", in.Shared.Path, srcSmaps)},
		Why: "If the pool is short at the next start (fragmentation, a larger shared_buffers), try starts in 4 KiB pages " +
			"without an error, and page tables and OOM risk come back unnoticed.",
		Fix:      "Set huge_pages=on: a start that cannot get its pages then fails loudly.",
		Settings: []finding.Setting{pgSetting(in.Unit, "huge_pages", "on", "try", "on", "fail at start rather than run without huge pages")},
	}}
}

func checkSysVHuge(in *postgres.Instance) []finding.Finding {
	hp := in.Settings.String("huge_pages")
	if in.Settings.String("shared_memory_type") != "sysv" || (hp != "on" && hp != "try") {
		return nil
	}
	return []finding.Finding{{
		ID: "hugepages.sysv", Severity: finding.Warning, Subject: PostgresSubject(in),
		Title:    "shared_memory_type=sysv: PostgreSQL never uses huge pages with it",
		Evidence: []finding.Evidence{pgEvidence(in, "shared_memory_type"), pgEvidence(in, "huge_pages")},
		Why:      "PostgreSQL asks for huge pages only for an mmap segment: with sysv, huge_pages=try always falls back and on refuses to start.",
		Fix:      "Set shared_memory_type=mmap (the default).",
		Settings: []finding.Setting{pgSetting(in.Unit, "shared_memory_type", "mmap", "sysv", "mmap", "huge pages need an mmap segment")},
	}}
}
