// Package advise is dbmem's judgement: pure functions that take a snapshot
// (or a what-if description of a host) and return findings and settings,
// each with its evidence and its formula. It does no I/O and no formatting.
//
//   - Check(snapshot, Options) []Finding: huge pages (off, fallen back with
//     its cause, pool too small, unused or oversized, starving the host,
//     uneven over NUMA nodes), page tables
//     now and projected at max_connections, the OOM ranking (the kernel's
//     badness, predicted) and oom_score_adj of the postmaster and its
//     children, the worst-case memory against RAM, CommitLimit and the
//     cgroup limit, overcommit, swap, THP, zone reclaim, the cache's share
//     of RAM. Thresholds are in thresholds.go and docs/check-plan.md.
//   - Plan(PlanInput) PlanResult: the joint settings (huge page pool with a
//     stated margin, strict overcommit sized around it, swappiness, THP,
//     huge_pages=on, OOM protection, Kubernetes resources; for MySQL/MariaDB
//     servers, PlanMySQL, large_pages=ON and the SysV group, memlock and
//     shm limits), every value with its formula, and each instance's worst
//     case under the plan and as it runs now. internal/plan builds the
//     PlanInput.
//
// Engines differ where it matters (THP advice, mmap or SysV huge pages):
// Engine holds that knowledge; checks common to all engines read an
// engine-neutral view of an instance (instance.go): a PostgreSQL or
// MySQL/MariaDB server, or an owner of SysV segments (Oracle's SGA or
// another program's, instance_sysv.go). The software found
// beside the databases (internal/cohost: Redis, MongoDB, JVMs, Erlang VMs,
// Oracle, kubelet) joins the THP advice and decides whether strict
// overcommit may be advised (cohosted.go, thp.go); inside a pod the
// kernel's settings and the pool are the node's.
package advise
