package advise

import (
	"slices"
	"sort"

	"github.com/dbmem/dbmem/internal/cohost"
	"github.com/dbmem/dbmem/internal/finding"
	"github.com/dbmem/dbmem/internal/linux"
	"github.com/dbmem/dbmem/internal/servertrust"
	"github.com/dbmem/dbmem/internal/snapshot"
)

// Options tune Check.
type Options struct {
	// Processes are every process of the host, for the OOM ranking (see
	// plan.HostProcesses); nil ranks the database processes of the
	// snapshot only.
	Processes []linux.Process
	// NodesPerQuery is the number of sort/hash nodes each query is assumed
	// to run at once in the worst case (default DefaultNodesPerQuery).
	NodesPerQuery int
	// SharedHost says the host runs other software besides the databases:
	// strict overcommit is then not advised.
	SharedHost bool
	// MinSeverity drops findings below it.
	MinSeverity finding.Severity
	// Trust says whose instances count in host-wide sums and advice
	// (--server-account; the zero value trusts postgres, mysql and the
	// account dbmem runs as).
	Trust servertrust.Policy
}

// host is what the host checks read.
type host struct {
	linux.Host
	// RAM is MemTotal; valid only in a check that needed MemTotal (0 when
	// unknown: never shown, never divided by).
	RAM uint64
	// Instances are the database servers, every engine's (PostgreSQL,
	// MySQL/MariaDB); the owners of SysV segments are judged as instances
	// too (fromSysV), but are not listed here.
	Instances []instance
	// Software is what runs beside the databases (cohost): Redis,
	// MongoDB, JVMs, Erlang VMs, Oracle, kubelet.
	Software []cohost.Software
	// Env says whether dbmem runs in a container (a pod): the kernel's
	// settings and the huge page pool are then the node's.
	Env linux.Environment
	// Dedicated: databases run here and the caller did not say the host is
	// shared.
	Dedicated bool
	Opts      Options
	// skipped collects the checks that could not run (see need).
	skipped *[]Skipped
	// leftOut says, by subject, why an instance is not a trusted
	// account's: it counts in no host-wide sum (check_untrusted.go).
	leftOut map[string]string
}

// Result is what Judge found, and the checks it could not make.
type Result struct {
	Findings []finding.Finding `json:"findings"`
	// Skipped are checks whose inputs were not read: they were not
	// evaluated (a missing number is never taken as 0).
	Skipped []Skipped `json:"skipped,omitempty"`
}

// Skipped is a check that did not run, and the inputs it lacked.
type Skipped struct {
	ID      string `json:"id"`
	Subject string `json:"subject"`
	// Missing names each input and where it should have come from:
	// "PageTables (/proc/meminfo)".
	Missing []string `json:"missing"`
}

// Check judges a snapshot and returns its findings, most severe first. It is
// pure: everything it reads is in s and o. Judge also says which checks
// were skipped.
func Check(s *snapshot.Snapshot, o Options) []finding.Finding { return Judge(s, o).Findings }

// Judge judges a snapshot: its findings, most severe first, and the checks
// skipped because an input was not read.
func Judge(s *snapshot.Snapshot, o Options) Result {
	if o.NodesPerQuery < 1 {
		o.NodesPerQuery = DefaultNodesPerQuery
	}
	var skipped []Skipped
	h := host{Host: s.Host, Opts: o, skipped: &skipped}
	if m := s.Host.Meminfo.MemTotalBytes; m != nil {
		h.RAM = *m
	}
	hugeSize, _ := s.Host.DefaultPageSize()
	shmGroup, _ := s.Host.Sysctls.Uint("vm.hugetlb_shm_group")
	for _, in := range s.Postgres {
		v := fromPostgres(in, hugeSize, o)
		v.Untrusted = h.vouch(v.Subject, in.Owners, "postgres")
		if cg, ok := s.CgroupOf(in.PostmasterPID); ok {
			v.Hugetlb = cg.Hugetlb
		}
		h.Instances = append(h.Instances, v)
	}
	for _, m := range s.MySQL {
		v := fromMySQL(m, hugeSize, uint32(shmGroup))
		v.Untrusted = h.vouch(v.Subject, m.Owners, "mysql")
		h.Instances = append(h.Instances, v)
	}
	h.Software, h.Env = s.Software, s.Environment
	h.Dedicated = h.databases() && !o.SharedHost
	var out []finding.Finding
	for _, c := range hostChecks {
		out = append(out, c(h)...)
	}
	// The owners of SysV segments are judged as instances; host-wide sums
	// count Oracle as co-hosted software (h.Software).
	for _, in := range slices.Concat(h.Instances, fromSysV(s.SysV, h.Instances, s.Software, hugeSize)) {
		for _, c := range instanceChecks {
			out = append(out, c(h, in)...)
		}
	}
	for _, in := range s.Postgres {
		out = append(out, postgresChecks(h, in)...)
	}
	out = append(out, otherChecks(h, s)...)
	out = append(out, guardChecks(h, s)...)
	out = append(out, oomRanking(h)...)
	return Result{Findings: sortFindings(out, o.MinSeverity), Skipped: sortSkipped(skipped)}
}

// hostChecks apply once per host.
var hostChecks = []func(host) []finding.Finding{
	checkOvercommitMode, checkCommitNearLimit, checkSwap, checkSwappiness, checkSwapInUse,
	checkTHP, checkZoneReclaim, checkPageTablesNow, checkPoolUse, checkPoolNUMA,
}

// instanceChecks apply to every instance, whatever its engine.
var instanceChecks = []func(host, instance) []finding.Finding{
	checkHugePagesUsed, checkPoolTooSmall, checkPageTablesProjected, checkWorstCase, checkCacheShare, checkHugetlbRights,
}

// sortFindings drops findings below min and orders the rest by severity,
// then subject, then ID.
func sortFindings(fs []finding.Finding, min finding.Severity) []finding.Finding {
	out := []finding.Finding{}
	for _, f := range fs {
		if f.Severity >= min {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Subject != b.Subject {
			return a.Subject < b.Subject
		}
		return a.ID < b.ID
	})
	return out
}

// Worst returns the highest severity among findings, and false when there
// are none.
func Worst(fs []finding.Finding) (finding.Severity, bool) {
	if len(fs) == 0 {
		return finding.Info, false
	}
	w := fs[0].Severity
	for _, f := range fs {
		if f.Severity > w {
			w = f.Severity
		}
	}
	return w, true
}

// ev builds evidence.
func ev(name, value, source string) finding.Evidence {
	return finding.Evidence{Name: name, Value: value, Source: source}
}

// Evidence sources.
const (
	srcMeminfo = "/proc/meminfo"
	srcSysctl  = "/proc/sys"
	srcTHP     = "/sys/kernel/mm/transparent_hugepage"
	srcPools   = "/sys/kernel/mm/hugepages"
	srcSmaps   = "postmaster's smaps"
)
