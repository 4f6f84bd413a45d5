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
// Calculations (Resolve, computeCost, estimateNeed, ResolveOOM,
// planEmulation, planStrict, tpsOver, the verdicts) are pure; Text and
// OOMText render the terminal summaries and the htmlreport sub-package the
// HTML pages.
package lab
