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
// is replayed by the next run or by Restore. The machine-wide lock is
// internal/kernelset's, the one tests and benchmarks take, so a lab run and
// they never change the pool at the same time.
//
// Calculations (Resolve, computeCost, estimateNeed) are pure; Text renders
// the terminal summary and the htmlreport sub-package the HTML page.
package lab
