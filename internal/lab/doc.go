// Package lab runs `dbmem lab`: the experiment of the field reports against
// real PostgreSQL on this host.
//
// A throwaway cluster (internal/pgcluster) is loaded once with pgbench data
// filling about 80% of shared_buffers. With huge_pages=off and then on, N
// connections open that each read the whole table through shared_buffers
// and stay idle. At every stage the lab waits for /proc/meminfo to settle
// and reads the host (MemAvailable with the free pages on the per-CPU
// lists, used memory, PageTables, Committed_AS, the huge page pool) and the
// cluster's processes (RSS, RssShmem, VmPTE, Pss, Pss_Anon, huge pages,
// oom_score). The ground truth is the fall of
// MemAvailable while the connections open; dbmem's prediction (the sum of
// Pss_Anon + VmPTE), Pss and RSS are compared with it. pgbench select-only
// runs then alternate off and on, with the backends' page faults and, where
// a PMU exists, dTLB counters.
//
// For huge_pages=on the lab grows vm.nr_hugepages by exactly the cluster's
// need (postgres -C shared_memory_size_in_huge_pages). That is product code
// changing the host, so every change is written to a journal before it is
// made, undone before Run returns (errors, cancellation by SIGINT/SIGTERM,
// SIGHUP), verified by reading it back, and a journal left by a killed run
// is replayed by the next run or by Restore. The lock, the journal and its
// replay are internal/hostchange's: the lock is the one tests and benchmarks
// take, so a lab run and they never change the pool at the same time, and
// both live in root's /run/dbmem, which no other user can write.
//
// RunOOM runs `dbmem lab oom`: a throwaway cluster in a memory cgroup the
// lab creates (internal/memcg), under pgbench load, runs the field
// report's runaway sort (work_mem at its maximum, 50 million generated
// rows) twice. Unprotected, the kernel's OOM killer ends the backend inside
// the cgroup and the postmaster restarts every session; the lab measures
// the kill, the sessions lost, the time until ready and TPS before, during
// and after, and runs internal/postmortem on that very kernel log and
// server log (Verdict). Protected as `dbmem plan` advises, the query fails
// with "out of memory": strict overcommit is emulated for the cluster alone
// (RLIMIT_AS on the postmaster, sized with plan's formula; every output
// says so), or set for real with StrictOvercommit where planStrict proves
// it safe, journaled like the huge page pool.
//
// RunBudget runs `dbmem lab budget`: a throwaway cluster in a memory
// cgroup the size of a small host runs a mixed workload (an OLTP role's
// pgbench select-only clients, a reporting role's sorts, hash joins and
// hash aggregates over a table much larger than work_mem) three times:
// under a uniformly small work_mem (the temp-bytes baseline, during which
// dbmem's budget is measured by plan's own code path: snapshot,
// plan.Build, advise.Plan), under that budget's settings and per-role
// work_mem, and under PGTune's settings for the host (budget.PGTune). Each
// run's peak private memory (Pss_Anon + VmPTE over the cgroup's processes,
// internal/pagecost's fast path, every 250 ms), temp bytes, OOM kills,
// "out of memory" errors and queries are compared; BudgetChecks states
// the claims about the dbmem run as PASS or FAIL.
//
// The experiments share a small framework (framework.go): Common (the
// options every experiment has), core (what every run has: its defaults,
// runLocked with the signals, the machine-wide lock, the replay of a
// killed run's journal, and restore, the cleanup on every exit), stepper (the timed steps), findPGTools, labHost
// and sandbox (the cluster in a memory cgroup, journaled before it is
// made).
//
// Calculations (Resolve, computeCost, estimateNeed, ResolveOOM,
// planEmulation, planStrict, tpsOver, the verdicts, ResolveBudget,
// BudgetChecks) are pure; Text, OOMText and BudgetText render the
// terminal summaries and the htmlreport sub-package the HTML pages.
package lab
